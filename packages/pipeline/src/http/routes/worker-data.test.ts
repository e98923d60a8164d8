import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { admin } from '../../index.js';
import { claimBody, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const SECRET = 'hunter2-topsecret';
const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n    artifacts: ["out/*"]\n';

/** What the worker says becomes data others read: it carries no secret and names the registered worker. */
describe('worker-supplied data', () => {
  let service: TestService;
  let open: TestProject;
  let sha: string;

  before(async () => {
    service = await startTestService();
    open = await service.addProject({ name: 'open', visibility: 'public', pipeline: PIPELINE });
    sha = await open.commit({ 'a.txt': 'a' });
    await admin.setVariable(service.deps, 'open', 'DEPLOY_TOKEN', SECRET, true);
  });
  after(() => service.stop());

  async function claim(token: string, name: string): Promise<ClaimedTask> {
    const response = await service.call('POST', '/api/v1/tasks/claim', { body: claimBody({ name }), token });
    assert.equal(response.status, 200);
    return ((await response.json()) as { task: ClaimedTask }).task;
  }

  it('records the registered worker name, whatever name the claim gives', async () => {
    const { token } = await service.addWorker(null, 'registered-runner');
    const { body } = await service.startJob(open, sha);
    const task = await claim(token, 'somebody-else');
    const read = (await (await service.call('GET', `/api/v1/tasks/${task.id}`)).json()) as { task: { worker_name: string } };
    assert.equal(read.task.worker_name, 'registered-runner');
    const job = (await (await service.call('GET', `/api/v1/projects/open/jobs/${body.job_id}`)).json()) as { tasks: { worker_name: string }[] };
    assert.deepEqual(job.tasks.map((summary) => summary.worker_name), ['registered-runner']);
    await service.call('POST', task.endpoints.done.slice(service.url.length), { body: { success: true, exit_code: 0, error: null }, token });
  });

  it('masks secret values in artifact paths and in the error string: task reads and downloads show none', async () => {
    const { token } = await service.addWorker();
    await service.startJob(open, sha);
    const task = await claim(token, 'w');
    assert.deepEqual(task.masked, [SECRET]);
    const uploaded = await service.call('POST', task.endpoints.artifact.slice(service.url.length), {
      body: Buffer.from('bytes'),
      token,
      headers: { 'content-type': 'application/octet-stream', 'x-artifact-path': encodeURIComponent(`out/${SECRET}/key-${SECRET}.txt`) },
    });
    assert.equal(uploaded.status, 201);
    const artifact = (await uploaded.json()) as { path: string; url: string };
    assert.equal(artifact.path, 'out/***/key-***.txt');
    const done = await service.call('POST', task.endpoints.done.slice(service.url.length), {
      body: { success: false, exit_code: 3, error: `curl: could not log in with ${SECRET}` },
      token,
    });
    assert.equal(done.status, 200);

    for (const path of [`/api/v1/tasks/${task.id}`, `/api/v1/projects/open/tasks/${task.id}`]) {
      const text = await (await service.call('GET', path)).text();
      assert.ok(!text.includes(SECRET) && !text.includes(encodeURIComponent(SECRET)), `${path}: ${text}`);
      const read = JSON.parse(text) as { task: { error: string }; artifacts: { path: string }[] };
      assert.equal(read.task.error, 'curl: could not log in with ***');
      assert.deepEqual(read.artifacts.map((stored) => stored.path), ['out/***/key-***.txt']);
    }
    const download = await fetch(artifact.url);
    assert.equal(download.status, 200);
    const disposition = download.headers.get('content-disposition') ?? '';
    assert.ok(!disposition.includes(SECRET) && !disposition.includes(encodeURIComponent(SECRET)), disposition);
    assert.match(disposition, /filename="key-\*\*\*\.txt"/);
    const stored = await service.deps.store.getTask(task.id);
    assert.ok(stored !== null && !JSON.stringify(stored).includes(SECRET), 'not in the database either');
  });
});
