// Domain rules of the management API on the real service (real SQLite, real blob files, real git).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';
import { logKey } from './logs.js';
import { deleteProject, removeOrphanLogs } from './manage-projects.js';
import { decideWorkerState, OFFLINE_AFTER_MS } from './manage-workers.js';
import type { SessionViewer } from './policies.js';

const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n';
const owner: SessionViewer = { userId: 'olivia', username: 'olivia', realm: 'system', roles: [] };

describe('management domain', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.stop());

  it("removes at start-up the logs of tasks that no longer exist, and keeps live tasks' logs", async () => {
    const kept = await service.addProject({ name: 'kept', owner: 'olivia', pipeline: PIPELINE });
    const job = (await service.startJob(kept, await kept.commit({ a: 'a' }))).body.job_id;
    const task = (await service.deps.store.listTasksOfJob(job))[0];
    assert.ok(task !== undefined);
    const { blobs } = service.deps;
    await blobs.append(logKey(task.id, 1), 0, Buffer.from('live'));
    // What a crash between the row removal and the blob removal leaves behind.
    await blobs.append(logKey('gone-task', 1), 0, Buffer.from('orphan'));
    await blobs.append(logKey('gone-task', 2), 0, Buffer.from('orphan'));
    assert.equal(await removeOrphanLogs(service.deps), 1);
    assert.deepEqual(await blobs.list('logs/'), [logKey(task.id, 1)]);
  });

  it("deletes a project's log blobs with its rows", async () => {
    const doomed = await service.addProject({ name: 'doomed', owner: 'olivia', pipeline: PIPELINE });
    const job = (await service.startJob(doomed, await doomed.commit({ a: 'a' }))).body.job_id;
    const task = (await service.deps.store.listTasksOfJob(job))[0];
    assert.ok(task !== undefined);
    await service.deps.blobs.append(logKey(task.id, 1), 0, Buffer.from('bytes'));
    await assert.rejects(deleteProject(service.deps, { ...owner, userId: 'mel' }, 'doomed'), /not found/);
    await deleteProject(service.deps, owner, 'doomed');
    assert.deepEqual(await service.deps.blobs.list(`logs/${task.id}/`), []);
    assert.equal(await service.deps.store.findProject('doomed'), null);
  });

  it('decides a worker is busy while it holds a task, else offline once unheard of for 90 s, else idle', () => {
    const worker = { id: 'w', name: 'w', ownerUserId: null, createdAt: 0, revokedAt: null, lastSeenAt: 1_000_000 };
    const held = { id: 't', name: 'build', projectId: 'p', projectName: 'p', jobId: 'j', jobNumber: 1 };
    assert.equal(decideWorkerState({ worker, heldTask: null }, 1_000_000 + OFFLINE_AFTER_MS), 'idle');
    assert.equal(decideWorkerState({ worker, heldTask: null }, 1_000_001 + OFFLINE_AFTER_MS), 'offline');
    assert.equal(decideWorkerState({ worker: { ...worker, lastSeenAt: null }, heldTask: null }, 0), 'offline');
    assert.equal(decideWorkerState({ worker, heldTask: held }, 1_000_001 + OFFLINE_AFTER_MS), 'busy');
  });
});
