import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ServiceError } from '../errors.js';
import { startTestService, type TestService } from '../testing/service.js';
import { createProject, createWorker, revokeWorker } from './projects.js';

// The admin operations awaited store calls in between their checks and their writes once the store
// became asynchronous; these cases start them concurrently, as two admin commands or requests would.
describe('admin operations started concurrently', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  const isConflict = (error: unknown): boolean => error instanceof ServiceError && error.status === 409;

  it('creates one live worker of a name, refusing the others with 409, and frees the name on revoke', async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => createWorker(service.deps, { name: 'twin' })));
    assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
    for (const result of results) if (result.status === 'rejected') assert.ok(isConflict(result.reason), String(result.reason));
    assert.equal((await service.deps.store.listWorkers()).filter((worker) => worker.name === 'twin').length, 1, 'nothing else stored');
    await revokeWorker(service.deps, 'twin');
    await createWorker(service.deps, { name: 'twin' });
  });

  it('creates one project of a name, refusing the others with 409', async () => {
    const repo = (await service.addProject()).repo;
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => createProject(service.deps, { name: 'same', repo })));
    assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
    for (const result of results) if (result.status === 'rejected') assert.ok(isConflict(result.reason), String(result.reason));
    assert.equal((await service.deps.store.listProjects()).filter((project) => project.name === 'same').length, 1);
  });
});
