import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { claimBody, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = `
tasks:
  build:
    image: x
    script: [make]
    retries: 1
    timeout: 60
  lint:
    image: x
    script: [lint]
    allow_failure: true
  test:
    image: x
    needs: [build, lint]
    script: [test]
  deploy:
    image: x
    needs: [test]
    script: [deploy]
`;

describe('task and job transitions', () => {
  let service: TestService;
  let demo: TestProject;
  let sha: string;
  let token: string;

  before(async () => {
    service = await startTestService();
    demo = await service.addProject({ name: 'demo', pipeline: PIPELINE });
    sha = await demo.commit({ 'a.txt': 'a' });
    token = (await service.addWorker()).token;
  });
  after(() => service.stop());

  async function claim(withToken = token): Promise<ClaimedTask | null> {
    const response = await service.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token: withToken });
    return response.status === 200 ? ((await response.json()) as { task: ClaimedTask }).task : null;
  }

  async function complete(task: ClaimedTask, success: boolean, withToken = token): Promise<{ status: number; body: { state: string; attempt: number } }> {
    const response = await service.call('POST', task.endpoints.done.slice(service.url.length), {
      body: { success, exit_code: success ? 0 : 1, error: success ? null : 'exit status 1' },
      token: withToken,
    });
    return { status: response.status, body: (await response.json()) as { state: string; attempt: number } };
  }

  async function states(jobId: string): Promise<Record<string, string>> {
    return Object.fromEntries((await service.deps.store.listTasksOfJob(jobId)).map((task) => [task.name, task.state]));
  }

  async function jobRead(jobId: string) {
    const response = await service.call('GET', `/api/v1/projects/demo/jobs/${jobId}`, { secret: demo.secret });
    return (await response.json()) as { job: { state: string }; tasks: { name: string; state: string; attempt: number; exit_code: number | null; worker_name: string | null }[] };
  }

  it('runs a job to success; a failed task with allow_failure still satisfies its dependents', async () => {
    const { body } = await service.startJob(demo, sha);
    assert.deepEqual(await states(body.job_id), { build: 'waiting', lint: 'waiting', test: 'blocked', deploy: 'blocked' });
    const build = await claim();
    const lint = await claim();
    assert.equal(build?.name, 'build');
    assert.equal(lint?.name, 'lint');
    assert.equal(await claim(), null, 'test is blocked');
    assert.deepEqual((await complete(lint as ClaimedTask, false)).body, { state: 'failure', attempt: 1 });
    assert.equal((await states(body.job_id)).test, 'blocked', 'still waiting for build');
    assert.deepEqual((await complete(build as ClaimedTask, true)).body, { state: 'success', attempt: 1 });
    assert.equal((await states(body.job_id)).test, 'waiting');
    const test = await claim();
    await complete(test as ClaimedTask, true);
    const deploy = await claim();
    assert.equal((await jobRead(body.job_id)).job.state, 'running');
    await complete(deploy as ClaimedTask, true);
    const read = await jobRead(body.job_id);
    assert.equal(read.job.state, 'success');
    assert.deepEqual(Object.keys(read.tasks[0] ?? {}).sort(), ['arch', 'attempt', 'base_name', 'exit_code', 'finished_at', 'id', 'matrix', 'name', 'needs', 'started_at', 'state', 'waiting_reason', 'worker_name']);
    assert.equal(read.tasks.find((task) => task.name === 'lint')?.exit_code, 1);
  });

  it('requeues a failed task while attempts remain, then fails it and skips everything downstream', async () => {
    const { body } = await service.startJob(demo, sha);
    const first = await claim();
    assert.equal(first?.name, 'build');
    assert.deepEqual((await complete(first as ClaimedTask, false)).body, { state: 'waiting', attempt: 1 });
    assert.equal((await states(body.job_id)).build, 'waiting');
    const lint = await claim();
    assert.equal(lint?.name, 'build', 'the requeued task keeps its place in line');
    assert.equal(lint?.attempt, 2);
    assert.deepEqual((await complete(lint as ClaimedTask, false)).body, { state: 'failure', attempt: 2 });
    assert.deepEqual(await states(body.job_id), { build: 'failure', lint: 'waiting', test: 'skipped', deploy: 'skipped' });
    const lastOne = await claim();
    await complete(lastOne as ClaimedTask, true);
    const read = await jobRead(body.job_id);
    assert.equal(read.job.state, 'failure');
  });

  it('refuses a malformed completion with 400 and changes nothing', async () => {
    const { body } = await service.startJob(demo, sha);
    const task = (await claim()) as ClaimedTask;
    const path = task.endpoints.done.slice(service.url.length);
    for (const bad of [{}, { success: 'yes', exit_code: 0 }, { success: true, exit_code: 1.5 }, { success: true, exit_code: 0, error: 3 }, '{oops']) {
      const response = await service.call('POST', path, { body: bad, token });
      assert.equal(response.status, 400, JSON.stringify(bad));
    }
    assert.equal((await states(body.job_id)).build, 'running');
    await service.call('POST', `/api/v1/projects/demo/jobs/${body.job_id}/cancel`, { body: { job: body.job_id }, secret: demo.secret });
    await complete(task, false);
    await drainAll();
  });

  it('tells a running task to stop through its heartbeat when the job is canceled', async () => {
    const { body } = await service.startJob(demo, sha);
    const build = (await claim()) as ClaimedTask;
    const beat = () => service.call('POST', build.endpoints.heartbeat.slice(service.url.length), { token });
    let response = await beat();
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { cancel: false });
    const cancel = await service.call('POST', `/api/v1/projects/demo/jobs/${body.job_id}/cancel`, { body: { job: body.job_id }, secret: demo.secret });
    assert.equal(((await cancel.json()) as { job: { state: string } }).job.state, 'running', 'build still runs');
    assert.deepEqual(await states(body.job_id), { build: 'running', lint: 'canceled', test: 'canceled', deploy: 'canceled' });
    response = await beat();
    assert.deepEqual(await response.json(), { cancel: true });
    assert.deepEqual((await complete(build, false)).body, { state: 'canceled', attempt: 1 }, 'not requeued although a retry remains');
    assert.equal((await jobRead(body.job_id)).job.state, 'canceled');
  });

  it('treats a task whose worker goes quiet for three heartbeat intervals as lost, and requeues it', async () => {
    const { body } = await service.startJob(demo, sha);
    const build = (await claim()) as ClaimedTask;
    service.clock.advance(29_000);
    await service.call('POST', build.endpoints.heartbeat.slice(service.url.length), { token });
    service.clock.advance(29_000);
    assert.notEqual((await claim())?.name, 'build', 'the heartbeat kept the lease');
    service.clock.advance(31_000);
    const again = await claim();
    assert.equal(again?.name, 'build', 'requeued after three silent intervals');
    assert.equal(again?.attempt, 2);
    const stale = await service.call('POST', build.endpoints.heartbeat.slice(service.url.length), { token });
    assert.equal(stale.status, 200, 'the same worker holds attempt 2 now');
    // A second loss with no attempts left fails the task.
    service.clock.advance(31_000);
    await claim();
    const task = (await service.deps.store.listTasksOfJob(body.job_id)).find((t) => t.name === 'build');
    assert.equal(task?.state, 'failure');
    assert.equal(task?.error, 'worker lost');
    assert.equal((await states(body.job_id)).test, 'skipped');
    await drainAll();
  });

  it('fails a held task that runs past its timeout with error "timeout"', async () => {
    const { body } = await service.startJob(demo, sha);
    const build = (await claim()) as ClaimedTask;
    assert.equal(build.timeout, 60);
    for (let elapsed = 0; elapsed < 70_000; elapsed += 5_000) {
      service.clock.advance(5_000);
      await service.call('POST', build.endpoints.heartbeat.slice(service.url.length), { token });
    }
    // A claim that matches nothing still sweeps lapsed tasks first.
    await service.call('POST', '/api/v1/tasks/claim', { body: claimBody({ arches: ['s390x'] }), token });
    const task = (await service.deps.store.listTasksOfJob(body.job_id)).find((t) => t.name === 'build');
    assert.equal(task?.error, 'timeout');
    assert.equal(task?.state, 'waiting', 'requeued: one retry was left');
    assert.equal((await service.call('POST', build.endpoints.heartbeat.slice(service.url.length), { token })).status, 404);
    await drainAll();
  });

  async function drainAll(): Promise<void> {
    for (let task = await claim(); task !== null; task = await claim()) await complete(task, true);
  }
});
