import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Agent, request } from 'undici';
import type { ClaimedTask } from '@conveyor/protocol';
import { claimBody, startTestService, type TestProject, type TestService } from '../../testing/service.js';

/** Two tasks of 250 variants each: 500 claimable tasks in one job. */
const PIPELINE = `
tasks:
  a:
    image: x
    script: [echo a]
    matrix: {n: [${Array.from({ length: 250 }, (_, i) => i).join(', ')}]}
  b:
    image: x
    script: [echo b]
    matrix: {n: [${Array.from({ length: 250 }, (_, i) => i).join(', ')}]}
`;

describe('claiming under concurrency, and the long poll', () => {
  let service: TestService;
  let demo: TestProject;
  let sha: string;

  before(async () => {
    service = await startTestService();
    demo = await service.addProject({ name: 'demo', pipeline: PIPELINE });
    sha = await demo.commit({ a: 'a' });
  });
  after(() => service.stop());

  it('never hands a task out twice to 32 concurrent claimers over 500 tasks', async () => {
    const { status, body } = await service.startJob(demo, sha);
    assert.equal(status, 200);
    assert.equal(body.tasks, 500);
    const dispatcher = new Agent({ connections: 64 });
    const claimers = await Promise.all(Array.from({ length: 32 }, async () => (await service.addWorker()).token));
    const seen: string[] = [];
    await Promise.all(
      claimers.map(async (token) => {
        for (;;) {
          const response = await request(`${service.url}/api/v1/tasks/claim`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify(claimBody()),
            dispatcher,
          });
          if (response.statusCode === 204) {
            await response.body.dump();
            return;
          }
          assert.equal(response.statusCode, 200);
          seen.push(((await response.body.json()) as { task: ClaimedTask }).task.id);
        }
      }),
    );
    await dispatcher.close();
    assert.equal(seen.length, 500);
    assert.equal(new Set(seen).size, 500, 'every task exactly once');
    const tasks = await service.deps.store.listTasksOfJob(body.job_id);
    assert.ok(tasks.every((task) => task.state === 'running' && task.attempt === 1));
    await service.call('POST', `/api/v1/projects/demo/jobs/${body.job_id}/cancel`, { body: { job: body.job_id }, secret: demo.secret });
  });

  it('holds a claim with ?wait=N until work arrives', async () => {
    const token = (await service.addWorker()).token;
    const started = Date.now();
    const waiting = service.call('POST', '/api/v1/tasks/claim?wait=10', { body: claimBody(), token });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const small = await demo.commit({ '.pipeline.yml': 'tasks:\n  one:\n    image: x\n    script: [echo]\n' });
    await service.startJob(demo, small);
    const response = await waiting;
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { task: ClaimedTask }).task.name, 'one');
    assert.ok(Date.now() - started < 5000, 'answered when the job arrived, not at the end of the wait');
  });

  it('answers 204 at the end of the wait when nothing arrives', async () => {
    const token = (await service.addWorker()).token;
    const started = Date.now();
    const response = await service.call('POST', '/api/v1/tasks/claim?wait=1', { body: claimBody(), token });
    assert.equal(response.status, 204);
    assert.ok(Date.now() - started >= 900);
  });

  it('lets go of a long poll as soon as the client goes away', async () => {
    const token = (await service.addWorker()).token;
    const controller = new AbortController();
    const waiting = service
      .call('POST', '/api/v1/tasks/claim?wait=30', { body: claimBody({ arches: ['riscv64'] }), token, signal: controller.signal })
      .catch(() => 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(service.deps.work.waiting, 1);
    controller.abort();
    assert.equal(await waiting, 'aborted');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(service.deps.work.waiting, 0);
  });
});
