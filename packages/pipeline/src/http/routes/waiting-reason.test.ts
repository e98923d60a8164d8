// A waiting task says why no worker takes it, from what live workers last offered in their claims.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { claimBody, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = `tasks:
  plain:
    image: x
    script: [make]
  arm:
    image: x
    arch: arm64
    script: [make]
  gpu:
    image: x
    requires: [gpu, docker]
    script: [make]
`;

describe('waiting_reason in the job read', () => {
  let service: TestService;
  let project: TestProject;
  let jobId: string;

  before(async () => {
    service = await startTestService();
    project = await service.addProject({ visibility: 'public', owner: 'alice', pipeline: PIPELINE });
    const sha = await project.commit({ 'README': 'x' });
    const started = await service.startJob(project, sha);
    assert.equal(started.status, 200);
    jobId = started.body.job_id;
  });
  after(() => service.stop());

  async function reasons(): Promise<Record<string, string | null>> {
    const response = await service.call('GET', `/api/v1/projects/${project.project.name}/jobs/${jobId}`);
    const body = (await response.json()) as { tasks: { name: string; state: string; waiting_reason: string | null }[] };
    return Object.fromEntries(body.tasks.map((task) => [task.name, task.waiting_reason]));
  }

  async function claim(token: string, body: object): Promise<number> {
    return (await service.call('POST', '/api/v1/tasks/claim', { token, body })).status;
  }

  it('names no worker, then a missing arch and features,, and forgets workers that went quiet', async () => {
    assert.deepEqual(await reasons(), { plain: 'no worker is connected', arm: 'no worker is connected', gpu: 'no worker is connected' });

    // Bob's own worker may not take alice's tasks: it is as if none were there.
    const bobs = await service.addWorker('bob');
    assert.equal(await claim(bobs.token, claimBody({ arches: ['arm64', 'amd64'], features: ['gpu', 'docker'] })), 204);
    assert.match((await reasons()).plain ?? '', /only other users' own workers/);

    // A shared worker offering arm64 and docker takes the arm64 task; the others still wait.
    const shared = await service.addWorker(null);
    assert.equal(await claim(shared.token, claimBody({ arches: ['arm64'], features: ['docker'] })), 200);
    assert.deepEqual(await reasons(), { plain: 'no worker offers arch amd64', arm: null, gpu: 'no worker offers arch amd64' });

    const amd = await service.addWorker(null);
    await service.deps.store.recordWorkerOffer(amd.worker.id, { arches: ['amd64'], features: ['docker'] }, service.clock.now());
    assert.deepEqual(await reasons(), { plain: null, arm: null, gpu: 'no worker offers the feature gpu' });

    // Past three heartbeats and the longest claim wait without a sighting, a worker no longer counts.
    service.clock.advance((service.deps.config.heartbeatInterval * 3 + 60) * 1000 + 1);
    assert.deepEqual(await reasons(), { plain: 'no worker is connected', arm: null, gpu: 'no worker is connected' });
  });
});
