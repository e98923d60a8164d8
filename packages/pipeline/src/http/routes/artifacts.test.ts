import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { THREAD_SINK_BYTES } from '../../blobs/fs/measure-stream.js';
import { claimBody, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n    artifacts: ["dist/*"]\n';

describe('artifact upload and download', () => {
  let service: TestService;
  let open: TestProject;
  let token: string;
  let task: ClaimedTask;
  let jobId: string;

  before(async () => {
    service = await startTestService();
    open = await service.addProject({ name: 'open', visibility: 'public', pipeline: PIPELINE });
    const sha = await open.commit({ 'a.txt': 'a' });
    token = (await service.addWorker()).token;
    jobId = (await service.startJob(open, sha)).body.job_id;
    const response = await service.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token });
    task = ((await response.json()) as { task: ClaimedTask }).task;
  });
  after(() => service.stop());

  const upload = (path: string, body: Buffer, headers: Record<string, string> = {}) =>
    service.call('POST', task.endpoints.artifact.slice(service.url.length), {
      body,
      token,
      headers: { 'content-type': 'application/octet-stream', 'x-artifact-path': path, ...headers },
    });

  function leftovers(): string[] {
    try {
      return readdirSync(join(service.deps.config.dataPath, 'tmp'));
    } catch {
      return [];
    }
  }

  /** The request head of an artifact upload declaring `length` bytes. */
  const rawHead = (path: string, length: number, name: string): string =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nX-Artifact-Path: ${name}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${length}\r\n\r\n`;

  /** Waits until no upload is in flight in the data directory's tmp/ (a dropped upload's thread stops first). */
  async function untilNoLeftovers(): Promise<string[]> {
    for (let waited = 0; waited < 3000 && leftovers().length > 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    return leftovers();
  }

  /** Sends raw bytes on a fresh connection and returns what came back before it closed. */
  function sendRaw(head: string, body: Buffer, endEarly: boolean): Promise<string> {
    const { port } = new URL(service.url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(head);
        socket.write(body);
        if (endEarly) setTimeout(() => socket.destroy(), 100);
      });
      let answer = '';
      socket.on('data', (chunk) => (answer += chunk.toString()));
      socket.on('close', () => resolve(answer));
      socket.on('error', () => resolve(answer));
    });
  }

  it('stores an upload with its sha256 and serves it back with the right headers', async () => {
    const bytes = Buffer.from('binary\u0000content\n'.repeat(1000));
    const response = await upload('dist/app.tgz', bytes);
    assert.equal(response.status, 201);
    const artifact = (await response.json()) as { id: string; path: string; size: number; sha256: string; url: string; created_at: number; expires_at: null };
    assert.deepEqual(Object.keys(artifact).sort(), ['created_at', 'expires_at', 'id', 'path', 'sha256', 'size', 'url']);
    assert.equal(artifact.path, 'dist/app.tgz');
    assert.equal(artifact.size, bytes.length);
    assert.equal(artifact.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.equal(artifact.url, `${service.url}/api/v1/projects/${open.project.id}/jobs/${jobId}/tasks/${task.id}/artifacts/${artifact.id}`);

    const download = await fetch(artifact.url);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-length'), String(bytes.length));
    assert.equal(download.headers.get('content-type'), 'application/octet-stream');
    assert.equal(download.headers.get('etag'), `"${artifact.sha256}"`);
    assert.match(download.headers.get('content-disposition') ?? '', /^attachment; filename="app.tgz"/);
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes));
    const cached = await fetch(artifact.url, { headers: { 'if-none-match': `"${artifact.sha256}"` } });
    assert.equal(cached.status, 304);

    const read = await service.call('GET', `/api/v1/tasks/${task.id}`);
    const body = (await read.json()) as { artifacts: { path: string }[] };
    assert.deepEqual(body.artifacts.map((a) => a.path), ['dist/app.tgz']);
  });

  it('replaces an earlier upload of the same path', async () => {
    await upload('dist/same.txt', Buffer.from('first'));
    const second = (await (await upload('dist/same.txt', Buffer.from('second!'))).json()) as { url: string };
    const stored = (await service.deps.store.listArtifacts(task.id, 1)).filter((a) => a.path === 'dist/same.txt');
    assert.equal(stored.length, 1);
    assert.equal(await (await fetch(second.url)).text(), 'second!');
    assert.equal(readdirSync(join(service.deps.config.dataPath, 'artifacts')).length, (await service.deps.store.listArtifacts(task.id, 1)).length);
  });

  it('strips traversal from the path instead of honouring it', async () => {
    const cases: [string, string][] = [
      ['../../etc/passwd', 'etc/passwd'],
      ['/abs/./x.txt', 'abs/x.txt'],
      ['a\\..\\..\\b.txt', 'a/b.txt'],
      ['%2e%2e/%2e%2e/up.txt', 'up.txt'],
      ['caf%C3%A9.txt', 'café.txt'],
    ];
    for (const [given, stored] of cases) {
      const response = await upload(given, Buffer.from('x'));
      assert.equal(response.status, 201, given);
      assert.equal(((await response.json()) as { path: string }).path, stored, given);
    }
    for (const bad of ['', '../..', '/', 'bad%ZZ', 'new%0Aline']) {
      const before = (await service.deps.store.listArtifacts(task.id, 1)).length;
      const response = await upload(bad, Buffer.from('x'));
      assert.equal(response.status, 400, JSON.stringify(bad));
      assert.equal((await service.deps.store.listArtifacts(task.id, 1)).length, before);
    }
  });

  it('requires Content-Length (411) and rejects a body that ends short or runs long, leaving nothing', async () => {
    const before = (await service.deps.store.listArtifacts(task.id, 1)).length;
    const path = new URL(task.endpoints.artifact).pathname;
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(task.endpoints.artifact, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-artifact-path': 'chunked.bin', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write('some bytes');
      req.end();
    });
    assert.equal(chunked, 411);

    const head = (length: number, name: string) => rawHead(path, length, name);
    await sendRaw(head(1000, 'short.bin'), Buffer.alloc(100, 1), true);
    const long = await sendRaw(head(10, 'long.bin'), Buffer.from('0123456789 and then some more bytes'), false);
    assert.match(long, /HTTP\/1\.1 400/);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const paths = (await service.deps.store.listArtifacts(task.id, 1)).map((a) => a.path);
    assert.ok(!paths.includes('short.bin') && !paths.includes('long.bin') && !paths.includes('chunked.bin'), paths.join());
    assert.equal((await service.deps.store.listArtifacts(task.id, 1)).length, before);
    assert.deepEqual(leftovers(), []);
  });

  // Bodies of THREAD_SINK_BYTES and more are hashed and written on a worker thread: the same rules hold there.
  it('stores a large upload through the hashing thread, and refuses one that ends short or runs long, leaving nothing', async () => {
    const bytes = Buffer.alloc(THREAD_SINK_BYTES + 4321);
    for (let at = 0; at + 4 <= bytes.length; at += 4) bytes.writeUInt32LE(at >>> 2, at);
    const response = await upload('dist/big.bin', bytes);
    assert.equal(response.status, 201);
    const artifact = (await response.json()) as { size: number; sha256: string; url: string };
    assert.equal(artifact.size, bytes.length);
    assert.equal(artifact.sha256, createHash('sha256').update(bytes).digest('hex'));
    assert.ok(Buffer.from(await (await fetch(artifact.url)).arrayBuffer()).equals(bytes));

    const before = (await service.deps.store.listArtifacts(task.id, 1)).length;
    const path = new URL(task.endpoints.artifact).pathname;
    await sendRaw(rawHead(path, THREAD_SINK_BYTES * 2, 'big-short.bin'), bytes, true);
    const long = await sendRaw(rawHead(path, THREAD_SINK_BYTES, 'big-long.bin'), bytes, false);
    assert.match(long, /HTTP\/1\.1 400/);
    assert.deepEqual(await untilNoLeftovers(), []);
    const paths = (await service.deps.store.listArtifacts(task.id, 1)).map((a) => a.path);
    assert.ok(!paths.includes('big-short.bin') && !paths.includes('big-long.bin'), paths.join());
    assert.equal((await service.deps.store.listArtifacts(task.id, 1)).length, before);
  });

  it('checks visibility on every download, and that project, job, task and artifact agree', async () => {
    const [artifact] = await service.deps.store.listArtifacts(task.id, 1);
    assert.ok(artifact);
    const url = (project: string, job: string, taskId: string, id: string) => `/api/v1/projects/${project}/jobs/${job}/tasks/${taskId}/artifacts/${id}`;
    assert.equal((await service.call('GET', url('open', jobId, task.id, artifact.id))).status, 200, 'by project name too');

    const other = await service.addProject({ visibility: 'public', pipeline: PIPELINE });
    const otherJob = (await service.startJob(other, await other.commit({ b: 'b' }))).body.job_id;
    const otherTask = (await service.deps.store.listTasksOfJob(otherJob))[0]?.id ?? '';
    for (const wrong of [
      url(other.project.id, jobId, task.id, artifact.id),
      url('open', otherJob, task.id, artifact.id),
      url('open', jobId, otherTask, artifact.id),
      url('open', jobId, task.id, 'nope'),
    ]) {
      assert.equal((await service.call('GET', wrong)).status, 404, wrong);
    }

    await service.deps.store.updateProject(open.project.id, { visibility: 'private' }, 0);
    try {
      assert.equal((await service.call('GET', url('open', jobId, task.id, artifact.id))).status, 404, 'private now');
      assert.equal(
        (await service.call('GET', url('open', jobId, task.id, artifact.id), { secret: open.secret })).status,
        404,
        'the trigger secret does not download artifacts: only the owner or an administrator',
      );
    } finally {
      await service.deps.store.updateProject(open.project.id, { visibility: 'public' }, 0);
    }
  });
});
