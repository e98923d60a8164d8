// A server killed in the middle of an upload, or between writing an artifact's bytes and recording
// them, leaves nothing once it has started again: no orphan file, no temporary file, no pending record.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { ClaimedTask } from '@conveyor/protocol';
import { startChild } from './bench/processes.js';
import { readPipelineConfig, type PipelineConfig } from './config.js';
import { artifactKey } from './domain/artifacts.js';
import { createProject, createWorker } from './domain/projects.js';
import { commitFiles, initRepository, makeTempDir } from './git/test-repos.js';
import { newId } from './ids.js';
import { openPipeline, startPipelineServer } from './main.js';
import type { Project } from './store/types.js';

const SERVE_SCRIPT = fileURLToPath(new URL('./testing/serve-process.js', import.meta.url));
const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n    artifacts: ["out/*"]\n';

describe('crash recovery of artifact uploads', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let env: Record<string, string>;
  let config: PipelineConfig;
  let project: Project;
  let token: string;
  let sha: string;

  before(async () => {
    dir = await makeTempDir('crash');
    env = {
      PIPELINE_DATABASE_PATH: join(dir.path, 'pipeline.db'),
      PIPELINE_DATA_PATH: join(dir.path, 'data'),
      PIPELINE_PORT: '0',
      PIPELINE_LOG_LEVEL: 'silent',
    };
    config = readPipelineConfig(env);
    const repo = await initRepository(join(dir.path, 'repo'));
    sha = await commitFiles(repo, { '.pipeline.yml': PIPELINE });
    const deps = openPipeline(config);
    project = await createProject(deps, { name: 'demo', repo });
    token = (await createWorker(deps, { name: 'w' })).token;
    await deps.store.close();
  });
  after(() => dir.remove());

  const files = (directory: string): string[] => {
    try {
      return readdirSync(join(config.dataPath, directory));
    } catch {
      return [];
    }
  };

  async function claimAfterJob(url: string): Promise<ClaimedTask> {
    const body = JSON.stringify({ sha, ref: 'refs/heads/main' });
    const signature = `sha256=${createHmac('sha256', project.triggerSecret).update(body).digest('hex')}`;
    const job = await fetch(`${url}/api/v1/projects/demo/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    assert.equal(job.status, 200);
    const claim = await fetch(`${url}/api/v1/tasks/claim`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ arches: ['amd64'], features: [], name: 'w' }),
    });
    return ((await claim.json()) as { task: ClaimedTask }).task;
  }

  async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
    for (let waited = 0; waited < 10_000; waited += 20) {
      if (await condition()) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.fail(`timed out waiting for ${what}`);
  }

  it('a server killed with SIGKILL mid-upload leaves nothing once started again', async () => {
    const child = await startChild([SERVE_SCRIPT], { ...process.env, ...env }, 'Listening on');
    let socket: Socket | undefined;
    try {
      const url = /Listening on (\S+)/.exec(child.output())?.[1] ?? assert.fail(child.output());
      const task = await claimAfterJob(url);
      const { port, pathname } = new URL(task.endpoints.artifact);
      socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nX-Artifact-Path: out/half.bin\r\n` +
          `Content-Type: application/octet-stream\r\nContent-Length: 1000000\r\n\r\n`,
      );
      socket.write(Buffer.alloc(300_000, 7));
      // The upload is under way: its bytes are arriving in a temporary file.
      await until(() => files('tmp').length > 0, 'the temporary file');
      child.child.kill('SIGKILL');
      await new Promise((resolve) => child.child.once('exit', resolve));
    } finally {
      socket?.destroy();
      await child.stop(1000);
    }
    assert.ok(files('tmp').length > 0, 'the crash left a temporary file behind');

    const server = await startPipelineServer(config);
    try {
      assert.deepEqual(files('tmp'), []);
      assert.deepEqual(files('artifacts'), []);
      const { store } = openPipeline(config);
      try {
        assert.deepEqual(await store.listUnsettledArtifacts(), []);
      } finally {
        await store.close();
      }
    } finally {
      await server.stop();
    }
  });

  it('a crash between writing the bytes and recording them leaves a pending record that start-up removes, with its file', async () => {
    const deps = openPipeline(config);
    let keep: string;
    try {
      // The state a crash leaves at each step of an upload and of a replacement, made with the steps themselves.
      const [task] = await deps.store.listTasksOfJob((await deps.store.findJob(project.id, '1'))?.id ?? '');
      assert.ok(task !== undefined && task.state === 'running');
      const workerId = task.workerId ?? '';
      const reserve = async (path: string, bytes: string): Promise<string> => {
        const id = newId();
        const reserved = await deps.store.reserveArtifact({ id, taskId: task.id, attempt: task.attempt, path, size: bytes.length, createdAt: 1 }, workerId, 1e9);
        assert.equal(reserved.kind, 'reserved');
        await deps.blobs.put(artifactKey(id), Readable.from([Buffer.from(bytes)]), bytes.length);
        return id;
      };
      // Written and moved into place, never committed.
      await reserve('out/uncommitted.bin', 'lost');
      // Committed, then replaced: the replaced one is marked, its bytes not yet removed.
      const replacedId = await reserve('out/kept.bin', 'old');
      await deps.store.commitArtifact(replacedId, workerId, { size: 3, sha256: 'a'.repeat(64), createdAt: Date.now(), expiresAt: null });
      keep = await reserve('out/kept.bin', 'new');
      await deps.store.commitArtifact(keep, workerId, { size: 3, sha256: 'b'.repeat(64), createdAt: Date.now(), expiresAt: null });
      // A file an older version wrote before recording it, and an upload's temporary file.
      writeFileSync(join(config.dataPath, 'artifacts', newId()), 'orphan');
      mkdirSync(join(config.dataPath, 'tmp'), { recursive: true });
      writeFileSync(join(config.dataPath, 'tmp', '1234-1.put'), 'partial');
      assert.equal(files('artifacts').length, 4);
    } finally {
      await deps.store.close();
    }

    const server = await startPipelineServer(config);
    try {
      assert.deepEqual(files('tmp'), []);
      assert.deepEqual(files('artifacts'), [keep], 'only the committed artifact is left');
      const after = openPipeline(config);
      try {
        assert.deepEqual(await after.store.listUnsettledArtifacts(), []);
        const kept = await after.store.getArtifact(keep);
        assert.ok(kept !== null);
        assert.equal(kept.expiresAt, kept.createdAt + config.artifactRetentionSeconds * 1000, 'an artifact without expiry gets the retention');
      } finally {
        await after.store.close();
      }
    } finally {
      await server.stop();
    }
  });
});
