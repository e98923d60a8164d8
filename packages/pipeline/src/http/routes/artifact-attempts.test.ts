import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { removeExpiredArtifacts } from '../../domain/artifacts.js';
import { claimBody, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const DAY_MS = 86_400_000;
const PIPELINE = `
tasks:
  flaky:
    image: x
    script: [make]
    retries: 2
    artifacts: ["out/*"]
  kept:
    image: x
    script: [make]
    artifacts: {paths: ["out/*"], expire_in: 7d}
`;

interface ArtifactBody {
  id: string;
  path: string;
  url: string;
  created_at: number;
  expires_at: number;
}

describe('artifacts per attempt, their limits and their expiry', () => {
  let service: TestService;
  let open: TestProject;
  let token: string;
  let jobId: string;

  before(async () => {
    service = await startTestService({ config: { maxArtifactBytes: 1000, maxTaskArtifactBytes: 2500, artifactRetentionSeconds: 30 * 86_400 } });
    open = await service.addProject({ name: 'open', visibility: 'public', pipeline: PIPELINE });
    token = (await service.addWorker()).token;
    jobId = (await service.startJob(open, await open.commit({ 'a.txt': 'a' }))).body.job_id;
  });
  after(() => service.stop());

  async function claim(): Promise<ClaimedTask> {
    const response = await service.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token });
    assert.equal(response.status, 200);
    return ((await response.json()) as { task: ClaimedTask }).task;
  }
  const upload = (task: ClaimedTask, path: string, body: Buffer) =>
    service.call('POST', task.endpoints.artifact.slice(service.url.length), {
      body,
      token,
      headers: { 'content-type': 'application/octet-stream', 'x-artifact-path': path },
    });
  const complete = (task: ClaimedTask, success: boolean) =>
    service.call('POST', task.endpoints.done.slice(service.url.length), { body: { success, exit_code: success ? 0 : 1, error: null }, token });
  const readTask = async (taskId: string, query = '') => {
    const response = await service.call('GET', `/api/v1/projects/open/tasks/${taskId}${query}`);
    return { status: response.status, body: (await response.json()) as { artifacts: ArtifactBody[]; error?: string } };
  };
  const files = (directory: string): string[] => {
    try {
      return readdirSync(join(service.deps.config.dataPath, directory));
    } catch {
      return [];
    }
  };
  /** Every artifact record in any state, straight from the store. */
  const records = () => service.deps.store.listUnsettledArtifacts();

  let flaky: ClaimedTask;
  let first: ArtifactBody;

  it('lists the current attempt\'s artifacts; an older attempt\'s are read with ?attempt=N', async () => {
    flaky = await claim();
    assert.equal(flaky.name, 'flaky');
    first = (await (await upload(flaky, 'out/report.txt', Buffer.from('attempt one'))).json()) as ArtifactBody;
    await upload(flaky, 'out/only-first.txt', Buffer.from('x'));
    await complete(flaky, false);
    const retry = await claim();
    assert.equal(retry.id, flaky.id);
    assert.equal(retry.attempt, 2);
    assert.deepEqual((await readTask(flaky.id)).body.artifacts, [], 'the failed attempt\'s artifacts are not the current ones');
    const second = (await (await upload(retry, 'out/report.txt', Buffer.from('attempt two'))).json()) as ArtifactBody;
    await complete(retry, true);

    const current = await readTask(flaky.id);
    assert.deepEqual(current.body.artifacts.map((artifact) => [artifact.path, artifact.id]), [['out/report.txt', second.id]]);
    const older = await readTask(flaky.id, '?attempt=1');
    assert.equal(older.status, 200);
    assert.deepEqual(older.body.artifacts.map((artifact) => artifact.path), ['out/only-first.txt', 'out/report.txt']);
    assert.equal(await (await fetch(first.url)).text(), 'attempt one', 'the older attempt\'s file is still downloadable');
    assert.deepEqual((await readTask(flaky.id, '?attempt=2')).body.artifacts.map((artifact) => artifact.id), [second.id]);
    const bare = (await (await service.call('GET', `/api/v1/tasks/${flaky.id}?attempt=1`)).json()) as { artifacts: ArtifactBody[] };
    assert.equal(bare.artifacts.length, 2, 'the bare read takes ?attempt too');
    for (const [query, status] of [['?attempt=3', 404], ['?attempt=0', 400], ['?attempt=x', 400], ['?attempt=-1', 400]] as const) {
      assert.equal((await readTask(flaky.id, query)).status, status, query);
    }
  });

  it('sets expires_at from the service retention, or from the pipeline file\'s expire_in', async () => {
    const retentionExpiry = first.created_at + 30 * DAY_MS;
    assert.equal(first.expires_at, retentionExpiry);
    const kept = await claim();
    assert.equal(kept.name, 'kept');
    const response = await upload(kept, 'out/k.txt', Buffer.from('k'));
    const artifact = (await response.json()) as ArtifactBody;
    assert.equal(artifact.expires_at, artifact.created_at + 7 * DAY_MS);
  });

  it('refuses with 413 a file over PIPELINE_MAX_ARTIFACT_BYTES or past the attempt\'s total, storing nothing', async () => {
    const kept = (await service.deps.store.listTasksOfJob(jobId)).find((task) => task.name === 'kept');
    assert.ok(kept !== undefined);
    const task = { ...flaky, id: kept.id, endpoints: { ...flaky.endpoints, artifact: flaky.endpoints.artifact.replace(flaky.id, kept.id) } };
    const before = (await service.deps.store.listArtifacts(kept.id, 1)).map((artifact) => artifact.id);
    const stored = files('artifacts').length;

    const tooBig = await upload(task, 'out/big.bin', Buffer.alloc(1001));
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.headers.get('connection'), 'close');
    const refusal = (await tooBig.json()) as { error: string; max_artifact_bytes: number };
    assert.equal(refusal.max_artifact_bytes, 1000);
    assert.match(refusal.error, /limited to 1000 bytes/);

    assert.equal((await upload(task, 'out/a.bin', Buffer.alloc(1000))).status, 201);
    assert.equal((await upload(task, 'out/b.bin', Buffer.alloc(1000))).status, 201);
    const pastTotal = await upload(task, 'out/c.bin', Buffer.alloc(600));
    assert.equal(pastTotal.status, 413);
    assert.equal(((await pastTotal.json()) as { max_task_artifact_bytes: number }).max_task_artifact_bytes, 2500);
    assert.equal((await upload(task, 'out/b.bin', Buffer.alloc(900))).status, 201, 'a replaced path does not count twice');

    // A declared length far past the limit is answered at once, without reading (or waiting for) the body.
    const { port } = new URL(service.url);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST ${new URL(task.endpoints.artifact).pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
            `X-Artifact-Path: huge.bin\r\nContent-Type: application/octet-stream\r\nContent-Length: ${10 * 1024 ** 3}\r\n\r\n`,
        );
      });
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('close', () => resolve(text));
    });
    assert.match(answer, /^HTTP\/1\.1 413/);

    const paths = (await service.deps.store.listArtifacts(kept.id, 1)).map((artifact) => artifact.path);
    assert.deepEqual(paths.filter((path) => ['out/big.bin', 'out/c.bin', 'huge.bin'].includes(path)), [], 'no record');
    assert.equal(paths.length, before.length + 2);
    assert.equal(files('artifacts').length, stored + 2, 'no file');
    assert.deepEqual(files('tmp'), [], 'no temporary file');
    assert.deepEqual(await records(), [], 'no pending or deleting record');
    await complete(task, true);
  });

  it('hides an expired artifact at once (404), and the sweep removes its file and record', async () => {
    const kept = (await service.deps.store.listTasksOfJob(jobId)).find((task) => task.name === 'kept');
    assert.ok(kept !== undefined);
    const keptArtifacts = await service.deps.store.listArtifacts(kept.id, 1);
    assert.equal(keptArtifacts.length, 3);
    const [current] = (await readTask(flaky.id)).body.artifacts;
    assert.ok(current !== undefined);
    const onDisk = files('artifacts').length;
    assert.equal(onDisk, 6);

    // expire_in 7d: the kept task's files go first.
    const sevenDays = Math.max(...keptArtifacts.map((artifact) => artifact.expiresAt ?? 0));
    service.clock.set(sevenDays - 1);
    assert.equal(await removeExpiredArtifacts(service.deps), 0);
    service.clock.set(sevenDays);
    assert.equal(await removeExpiredArtifacts(service.deps), 3);
    assert.equal(files('artifacts').length, 3);
    assert.deepEqual(await service.deps.store.listArtifacts(kept.id, 1), []);
    assert.equal(await service.deps.store.hasArtifactRecord(keptArtifacts[0]?.id ?? ''), false);
    assert.equal((await fetch(current.url)).status, 200, 'the retention of 30 days still keeps this one');

    service.clock.set(current.expires_at);
    assert.equal((await fetch(current.url)).status, 404, 'expired: gone for readers before the sweep runs');
    assert.deepEqual((await readTask(flaky.id)).body.artifacts, []);
    assert.equal(await removeExpiredArtifacts(service.deps), 3, 'both attempts of the flaky task');
    assert.deepEqual(files('artifacts'), []);
    assert.equal(await service.deps.store.hasArtifactRecord(current.id), false);
    assert.equal((await fetch(current.url)).status, 404);
  });
});
