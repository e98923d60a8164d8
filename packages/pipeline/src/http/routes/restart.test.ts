import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { claimBody, startTestService, type TestService } from '../../testing/service.js';

describe('a restarted server', () => {
  const services: TestService[] = [];
  after(async () => {
    for (const service of services) await service.halt().catch(() => undefined);
    if (services[0] !== undefined) await rm(services[0].dir, { recursive: true, force: true });
  });

  it('keeps jobs, held tasks, logs and artifacts, and the worker carries on where it was', async () => {
    const first = await startTestService();
    services.push(first);
    const project = await first.addProject({ name: 'demo', pipeline: 'tasks:\n  a:\n    image: x\n    script: [make]\n' });
    const sha = await project.commit({ f: 'f' });
    const jobId = (await first.startJob(project, sha)).body.job_id;
    const { token } = await first.addWorker();
    const claim = await first.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token });
    const task = ((await claim.json()) as { task: ClaimedTask }).task;
    const path = (url: string) => new URL(url).pathname;
    const octets = { 'content-type': 'application/octet-stream' };
    await first.call('POST', path(task.endpoints.log), { body: Buffer.from('before restart\n'), token, headers: { ...octets, 'x-log-offset': '0' } });
    await first.call('POST', path(task.endpoints.artifact), { body: Buffer.from('kept'), token, headers: { ...octets, 'x-artifact-path': 'out.txt' } });
    await first.halt();

    const second = await startTestService({ dir: first.dir, clock: first.clock });
    services.push(second);
    const retry = await second.call('POST', path(task.endpoints.log), {
      body: Buffer.from('restart\nafter restart\n'),
      token,
      headers: { ...octets, 'x-log-offset': '7' },
    });
    assert.deepEqual(await retry.json(), { offset: 29 }, 'the overlap with what was stored before the restart is trimmed');
    const done = await second.call('POST', path(task.endpoints.done), { body: { success: true, exit_code: 0, error: null }, token });
    assert.deepEqual(await done.json(), { state: 'success', attempt: 1 });
    const log = await second.call('GET', `/api/v1/projects/demo/jobs/${jobId}/tasks/${task.id}/log`, { secret: project.secret });
    assert.equal(await log.text(), 'before restart\nafter restart\n');
    const read = await second.call('GET', `/api/v1/projects/demo/tasks/${task.id}`, { secret: project.secret });
    const body = (await read.json()) as { task: { state: string }; artifacts: { path: string }[] };
    assert.equal(body.task.state, 'success');
    assert.deepEqual(body.artifacts.map((a) => a.path), ['out.txt']);
    const job = await second.call('GET', `/api/v1/projects/demo/jobs/${jobId}`, { secret: project.secret });
    assert.equal(((await job.json()) as { job: { state: string } }).job.state, 'success');
  });
});
