import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n  test:\n    image: x\n    needs: [build]\n    script: [test]\n';

describe('job cancel', () => {
  let service: TestService;
  let demo: TestProject;
  let sha: string;

  before(async () => {
    service = await startTestService();
    demo = await service.addProject({ name: 'demo', pipeline: PIPELINE });
    sha = await demo.commit({ 'a.txt': 'a' });
  });
  after(() => service.stop());

  const states = async (jobId: string) => (await service.deps.store.listTasksOfJob(jobId)).map((task) => task.state);
  const cancel = (job: string, options: { body?: object | string; secret?: string }) =>
    service.call('POST', `/api/v1/projects/demo/jobs/${job}/cancel`, options);

  it('refuses the read signature (an HMAC of the empty body) with 401 and cancels nothing', async () => {
    const { body } = await service.startJob(demo, sha);
    const read = await service.call('GET', `/api/v1/projects/demo/jobs/${body.job_id}`, { secret: demo.secret });
    assert.equal(read.status, 200, 'the same signature reads the job');
    const response = await cancel(body.job_id, { secret: demo.secret });
    assert.equal(response.status, 401);
    assert.match(((await response.json()) as { error: string }).error, /\{"job": "<job id>"\}/);
    assert.deepEqual(await states(body.job_id), ['waiting', 'blocked']);
    assert.equal((await service.deps.store.getJobById(body.job_id))?.cancelRequested, false);
  });

  it('refuses a body signed with another secret, or naming another job, or malformed, and cancels nothing', async () => {
    const { body } = await service.startJob(demo, sha);
    const { body: other } = await service.startJob(demo, sha);
    assert.equal((await cancel(body.job_id, { body: { job: body.job_id }, secret: 'not-the-secret' })).status, 401);
    const elsewhere = await cancel(body.job_id, { body: { job: other.job_id }, secret: demo.secret });
    assert.equal(elsewhere.status, 400);
    assert.match(((await elsewhere.json()) as { error: string }).error, /names another job/);
    for (const bad of ['{oops', {}, { job: 1 }, { job: null }]) {
      assert.equal((await cancel(body.job_id, { body: bad, secret: demo.secret })).status, 400, JSON.stringify(bad));
    }
    assert.deepEqual(await states(body.job_id), ['waiting', 'blocked']);
    assert.deepEqual(await states(other.job_id), ['waiting', 'blocked']);
  });

  it('cancels with a signature over {"job": "<id>"}, by id or by number in the path', async () => {
    const { body } = await service.startJob(demo, sha);
    const response = await cancel(body.job_id, { body: { job: body.job_id }, secret: demo.secret });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { job: { state: string } }).job.state, 'canceled');

    const { body: second } = await service.startJob(demo, sha);
    const job = await service.deps.store.getJobById(second.job_id);
    assert.ok(job !== null);
    assert.equal((await cancel(String(job.number), { body: { job: String(job.number) }, secret: demo.secret })).status, 400, 'the body names the id');
    const byNumber = await cancel(String(job.number), { body: { job: second.job_id }, secret: demo.secret });
    assert.equal(byNumber.status, 200);
    assert.deepEqual(await states(second.job_id), ['canceled', 'canceled']);
  });
});
