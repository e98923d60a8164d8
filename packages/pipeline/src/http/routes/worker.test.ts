import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { admin } from '../../index.js';
import { claimBody, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = `
env: {GLOBAL: g}
tasks:
  build:
    image: alpine:\${never}
    script: [echo build]
    env: {LEVEL: task}
    artifacts: ["dist/*"]
    timeout: 90s
  test:
    image: node:\${node}
    needs: [build]
    matrix: {node: ["20", "22"]}
    script: [echo test]
    retries: 1
  docker:
    image: alpine
    requires: [docker]
    script: [docker ps]
  arm:
    image: alpine
    arch: arm64
    script: [uname -m]
`.replace('alpine:${never}', 'alpine');

const CLAIMED_KEYS = [
  'artifacts', 'attempt', 'endpoints', 'env', 'heartbeat_interval', 'id', 'image', 'masked', 'name', 'ref',
  'requires', 'script', 'services', 'sha', 'timeout', 'workdir',
];

describe('the worker protocol', () => {
  let service: TestService;
  let demo: TestProject;
  let sha: string;
  let token: string;
  let otherToken: string;

  before(async () => {
    service = await startTestService();
    demo = await service.addProject({ name: 'demo', pipeline: PIPELINE });
    sha = await demo.commit({ 'README.md': 'hello\n', 'src/main.c': 'int main(){}\n' });
    await admin.setVariable(service.deps, 'demo', 'API_KEY', 'super-secret-value', true);
    await admin.setVariable(service.deps, 'demo', 'REGION', 'eu', false);
    token = (await service.addWorker()).token;
    otherToken = (await service.addWorker()).token;
  });
  after(() => service.stop());

  async function claim(withToken = token, body: object = claimBody(), query = ''): Promise<{ status: number; task: ClaimedTask | null }> {
    const response = await service.call('POST', `/api/v1/tasks/claim${query}`, { body, token: withToken });
    if (response.status !== 200) return { status: response.status, task: null };
    return { status: 200, task: ((await response.json()) as { task: ClaimedTask }).task };
  }

  async function post(url: string, withToken: string, body?: object | Buffer, headers: Record<string, string> = {}): Promise<Response> {
    return service.call('POST', url.slice(service.url.length), { body, token: withToken, headers });
  }

  /** Claims until nothing is left for this worker, completing each task successfully. */
  async function drain(withToken = token): Promise<void> {
    for (;;) {
      const { task } = await claim(withToken, claimBody({ features: ['docker'], arches: ['amd64', 'arm64'] }));
      if (task === null) return;
      await post(task.endpoints.done, withToken, { success: true, exit_code: 0, error: null });
    }
  }

  it('requires a worker token on claim and on every path below /tasks/:task, but not on the task read', async () => {
    const { body } = await service.startJob(demo, sha);
    const [first] = await service.deps.store.listTasksOfJob(body.job_id);
    const id = first?.id ?? '';
    const paths: [string, string][] = [
      ['POST', '/api/v1/tasks/claim'],
      ['GET', `/api/v1/tasks/${id}/source.tar.gz`],
      ['POST', `/api/v1/tasks/${id}/log`],
      ['POST', `/api/v1/tasks/${id}/artifacts`],
      ['POST', `/api/v1/tasks/${id}/heartbeat`],
      ['POST', `/api/v1/tasks/${id}/complete`],
      ['GET', `/api/v1/tasks/${id}/anything/else`],
      ['GET', '/api/v1/tasks/no-such-task/heartbeat'],
    ];
    for (const [method, path] of paths) {
      const headerSets: Record<string, string>[] = [{}, { authorization: 'Bearer cvw_wrong' }, { authorization: token }];
      for (const headers of headerSets) {
        const response = await service.call(method, path, { headers });
        assert.equal(response.status, 401, `${method} ${path} ${JSON.stringify(headers)}`);
        assert.equal(typeof ((await response.json()) as { error: string }).error, 'string');
      }
    }
    // The public read of a task is not worker territory (the project is private, so 404, not 401).
    assert.equal((await service.call('GET', `/api/v1/tasks/${id}`)).status, 404);
    await drain();
  });

  it('answers 204 when there is no work, and 400 for a malformed claim', async () => {
    assert.equal((await claim()).status, 204);
    for (const body of [{}, { arches: 'amd64', features: [], name: 'w' }, { arches: [], features: [], name: 5 }, [1]]) {
      assert.equal((await claim(token, body)).status, 400, JSON.stringify(body));
    }
    assert.equal((await claim(token, claimBody(), '?wait=soon')).status, 400);
    const response = await service.call('POST', '/api/v1/tasks/claim', { body: '{not json', token });
    assert.equal(response.status, 400);
  });

  it('hands out the claimed-task payload exactly as the spec lists it', async () => {
    const { body } = await service.startJob(demo, sha, { ref: 'refs/heads/main' });
    const { task } = await claim();
    assert.ok(task);
    assert.deepEqual(Object.keys(task).sort(), CLAIMED_KEYS);
    assert.equal(task.name, 'build');
    assert.equal(task.image, 'alpine');
    assert.deepEqual(task.script, ['echo build']);
    assert.equal(task.workdir, '/workspace');
    assert.equal(task.timeout, 90);
    assert.equal(task.attempt, 1);
    assert.equal(task.heartbeat_interval, 10);
    assert.equal(task.sha, sha);
    assert.equal(task.ref, 'refs/heads/main');
    assert.deepEqual(task.artifacts, { paths: ['dist/*'] });
    assert.deepEqual(task.requires, []);
    assert.deepEqual(task.services, []);
    assert.deepEqual(task.masked, ['super-secret-value']);
    assert.equal(task.env.GLOBAL, 'g');
    assert.equal(task.env.LEVEL, 'task');
    assert.equal(task.env.API_KEY, 'super-secret-value');
    assert.equal(task.env.REGION, 'eu');
    assert.equal(task.env.CI, 'true');
    assert.equal(task.env.PIPELINE_PROJECT, demo.project.id);
    assert.equal(task.env.PIPELINE_JOB, body.job_id);
    assert.equal(task.env.PIPELINE_TASK, task.id);
    assert.equal(task.env.PIPELINE_SHA, sha);
    assert.equal(task.env.PIPELINE_REF, 'refs/heads/main');
    for (const [key, url] of Object.entries(task.endpoints)) assert.ok(url.startsWith(`${service.url}/api/v1/tasks/${task.id}/`), key);
    assert.deepEqual(Object.keys(task.endpoints).sort(), ['artifact', 'done', 'heartbeat', 'log', 'source']);
    assert.ok(!JSON.stringify(task).includes(demo.project.name), 'no project name leaks into the payload');

    // The matrix values reach env and image once build is done.
    await post(task.endpoints.done, token, { success: true, exit_code: 0, error: null });
    const next = (await claim()).task;
    assert.equal(next?.name, 'test:node=20');
    assert.equal(next?.image, 'node:20');
    assert.equal(next?.env.node, '20');
    await drain();
  });

  it('offers a task only to a worker with its arch and features, and a user-owned worker only its owner\'s projects', async () => {
    const { body } = await service.startJob(demo, sha);
    const byName = new Map((await service.deps.store.listTasksOfJob(body.job_id)).map((task) => [task.name, task.id]));
    const docker = await claim(token, claimBody({ arches: ['arm64'], features: ['docker'] }));
    assert.equal(docker.task?.name, 'arm', 'arm64 only: the arm task (docker needs amd64)');
    const withFeature = await claim(token, claimBody({ features: ['docker', 'gpu'] }));
    assert.equal(withFeature.task?.name, 'build');
    const noFeature = await claim(token, claimBody());
    assert.equal(noFeature.status, 204, 'docker task needs the docker feature; tests are blocked');
    const docker2 = await claim(token, claimBody({ features: ['docker'] }));
    assert.equal(docker2.task?.id, byName.get('docker'));

    const alice = await service.addProject({ owner: 'alice', pipeline: 'tasks:\n  only:\n    image: x\n    script: ["true"]\n' });
    const aliceSha = await alice.commit({ 'x': 'x' });
    const bobWorker = (await service.addWorker('bob')).token;
    const aliceWorker = (await service.addWorker('alice')).token;
    await service.startJob(alice, aliceSha);
    assert.equal((await claim(bobWorker)).status, 204, "bob's worker never sees alice's project");
    assert.equal((await claim(aliceWorker)).task?.name, 'only');
    for (const task of [docker.task, withFeature.task, docker2.task]) await post(task?.endpoints.done ?? '', token, { success: true, exit_code: 0, error: null });
    await drain();
  });

  it('hands out the oldest job first, then the file order', async () => {
    const first = await service.startJob(demo, sha);
    const second = await service.startJob(demo, sha);
    const features = claimBody({ features: ['docker'], arches: ['amd64', 'arm64'] });
    const a = await claim(token, features);
    const b = await claim(token, features);
    const c = await claim(token, features);
    const jobOf = async (id: string | undefined) => (await service.deps.store.getTask(id ?? ''))?.jobId;
    assert.deepEqual([a.task?.name, b.task?.name, c.task?.name], ['build', 'docker', 'arm']);
    assert.deepEqual([await jobOf(a.task?.id), await jobOf(b.task?.id), await jobOf(c.task?.id)], [first.body.job_id, first.body.job_id, first.body.job_id]);
    const d = await claim(token, features);
    assert.equal(await jobOf(d.task?.id), second.body.job_id);
    for (const task of [a, b, c, d]) await post(task.task?.endpoints.done ?? '', token, { success: true, exit_code: 0, error: null });
    await drain();
  });

  it('lets a worker touch only a task it holds', async () => {
    await service.startJob(demo, sha);
    const { task } = await claim();
    assert.ok(task);
    const { endpoints } = task;
    assert.equal((await service.call('GET', endpoints.source.slice(service.url.length), { token: otherToken })).status, 404);
    assert.equal((await post(endpoints.log, otherToken, Buffer.from('x'), { 'content-type': 'application/octet-stream', 'x-log-offset': '0' })).status, 404);
    assert.equal((await post(endpoints.heartbeat, otherToken)).status, 404);
    assert.equal((await post(endpoints.done, otherToken, { success: true, exit_code: 0, error: null })).status, 404);
    assert.equal((await post(endpoints.artifact, otherToken, Buffer.from('x'), { 'x-artifact-path': 'a.txt', 'content-type': 'application/octet-stream' })).status, 404);
    assert.equal((await service.deps.store.getTask(task.id))?.state, 'running', 'nothing changed');
    assert.equal((await service.deps.store.listArtifacts(task.id, 1)).length, 0);
    await post(endpoints.done, token, { success: true, exit_code: 0, error: null });
    assert.equal((await post(endpoints.heartbeat, token)).status, 404, 'a finished task is no longer held');
    await drain();
  });

  it('streams the source tree at the commit as a gzip tar', async () => {
    await service.startJob(demo, sha);
    const { task } = await claim();
    assert.ok(task);
    const response = await service.call('GET', task.endpoints.source.slice(service.url.length), { token });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/gzip');
    const archive = join(service.dir, 'source.tar.gz');
    writeFileSync(archive, Buffer.from(await response.arrayBuffer()));
    const listing = spawnSync('tar', ['-tzf', archive], { encoding: 'utf8' });
    assert.equal(listing.status, 0, listing.stderr);
    assert.deepEqual(listing.stdout.split('\n').filter(Boolean).sort(), ['.pipeline.yml', 'README.md', 'src/', 'src/main.c']);
    await post(task.endpoints.done, token, { success: true, exit_code: 0, error: null });
    await drain();
  });

  it('appends logs at offsets: overlap trimmed, gap 409 with expected_offset, bad offset 400', async () => {
    const { body } = await service.startJob(demo, sha);
    const { task } = await claim();
    assert.ok(task);
    const append = (offset: string | null, chunk: string) =>
      post(task.endpoints.log, token, Buffer.from(chunk), {
        'content-type': 'application/octet-stream',
        ...(offset === null ? {} : { 'x-log-offset': offset }),
      });
    let response = await append('0', 'hello ');
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { offset: 6 });
    response = await append('3', 'lo world\n');
    assert.deepEqual(await response.json(), { offset: 12 }, 'the overlapping "lo " is trimmed');
    response = await append('0', 'hello ');
    assert.deepEqual(await response.json(), { offset: 12 }, 'a full retry changes nothing');
    response = await append('20', 'gap');
    assert.equal(response.status, 409);
    const gap = (await response.json()) as { error: string; expected_offset: number };
    assert.equal(gap.expected_offset, 12);
    assert.equal(typeof gap.error, 'string');
    for (const bad of [null, '-1', 'abc', '1.5', '']) {
      assert.equal((await append(bad, 'x')).status, 400, `offset ${String(bad)}`);
    }
    response = await append('12', 'bye\n');
    assert.deepEqual(await response.json(), { offset: 16 });

    const logPath = `/api/v1/projects/demo/jobs/${body.job_id}/tasks/${task.id}/log`;
    response = await service.call('GET', logPath, { secret: demo.secret });
    assert.equal(response.status, 200);
    assert.equal(await response.text(), 'hello world\nbye\n');
    response = await service.call('GET', logPath, { secret: demo.secret, headers: { range: 'bytes=6-10' } });
    assert.equal(response.status, 206);
    assert.equal(response.headers.get('content-range'), 'bytes 6-10/16');
    assert.equal(await response.text(), 'world');
    response = await service.call('GET', logPath, { secret: demo.secret, headers: { range: 'bytes=-4' } });
    assert.equal(await response.text(), 'bye\n');
    response = await service.call('GET', logPath, { secret: demo.secret, headers: { range: 'bytes=99-' } });
    assert.equal(response.status, 416);
    assert.equal((await service.call('GET', logPath)).status, 404, 'private: anonymous readers see nothing');
    assert.equal((await service.deps.store.getTask(task.id))?.logSize, 16);
    await post(task.endpoints.done, token, { success: true, exit_code: 0, error: null });
    await drain();
  });

  it('refuses a log past PIPELINE_MAX_LOG_BYTES with 413', async () => {
    const small = await startTestService({ config: { maxLogBytes: 1024 } });
    try {
      const project = await small.addProject({ pipeline: 'tasks:\n  a:\n    image: x\n    script: ["true"]\n' });
      const projectSha = await project.commit({ f: 'f' });
      await small.startJob(project, projectSha);
      const worker = (await small.addWorker()).token;
      const response = await small.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token: worker });
      const { task } = (await response.json()) as { task: ClaimedTask };
      const path = task.endpoints.log.slice(small.url.length);
      const headers = { 'content-type': 'application/octet-stream', 'x-log-offset': '0' };
      let append = await small.call('POST', path, { body: Buffer.alloc(1000, 97), token: worker, headers });
      assert.equal(append.status, 200);
      append = await small.call('POST', path, { body: Buffer.alloc(100, 97), token: worker, headers: { ...headers, 'x-log-offset': '1000' } });
      assert.equal(append.status, 413);
      assert.deepEqual(await append.json(), { error: 'the log is limited to 1024 bytes', code: 'log_full', max_log_bytes: 1024 });
      assert.equal((await small.deps.store.getTask(task.id))?.logSize, 1000, 'nothing of the refused chunk was kept');
    } finally {
      await small.stop();
    }
  });

  it('builds endpoints and artifact URLs on PIPELINE_PUBLIC_URL when it is set', async () => {
    const behindProxy = await startTestService({ config: { publicUrl: 'https://ci.example.test/base' } });
    try {
      const project = await behindProxy.addProject({ visibility: 'public', pipeline: 'tasks:\n  a:\n    image: x\n    script: ["true"]\n' });
      await behindProxy.startJob(project, await project.commit({ f: 'f' }));
      const worker = (await behindProxy.addWorker()).token;
      const response = await behindProxy.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token: worker });
      const { task } = (await response.json()) as { task: ClaimedTask };
      for (const url of Object.values(task.endpoints)) assert.ok(url.startsWith(`https://ci.example.test/base/api/v1/tasks/${task.id}/`), url);
      const upload = await behindProxy.call('POST', new URL(task.endpoints.artifact).pathname.replace('/base', ''), {
        body: Buffer.from('x'),
        token: worker,
        headers: { 'content-type': 'application/octet-stream', 'x-artifact-path': 'x.txt' },
      });
      assert.match(((await upload.json()) as { url: string }).url, /^https:\/\/ci\.example\.test\/base\/api\/v1\/projects\//);
    } finally {
      await behindProxy.stop();
    }
  });
});
