import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { trickle } from '@conveyor/kit/testing';
import type { ClaimedTask } from '@conveyor/protocol';
import { claimBody, startTestService, type TestProject, type TestService } from '../testing/service.js';

const LIMIT_MS = 1500;
const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n    artifacts: ["dist/*"]\n';

describe('request timeouts (PIPELINE_REQUEST_TIMEOUT)', () => {
  let service: TestService;
  let project: TestProject;
  let token: string;
  let task: ClaimedTask;

  before(async () => {
    service = await startTestService({ config: { requestTimeoutMs: LIMIT_MS, uploadMinBytesPerSecond: 1024 } });
    project = await service.addProject({ name: 'slow', pipeline: PIPELINE });
    const sha = await project.commit({ 'a.txt': 'a' });
    token = (await service.addWorker()).token;
    assert.equal((await service.startJob(project, sha)).status, 200);
    const claimed = await service.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token });
    task = ((await claimed.json()) as { task: ClaimedTask }).task;
  });
  after(() => service.stop());

  it('cuts a JSON body trickled one byte a second with 408, and creates nothing', async () => {
    const head =
      `POST /api/v1/projects/slow/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `X-Hub-Signature-256: sha256=${'0'.repeat(64)}\r\nContent-Length: 1000\r\n\r\n`;
    const outcome = await trickle(Number(new URL(service.url).port), head, '{"sha":"'.padEnd(1000, 'a'), 1000);
    assert.ok(outcome.elapsedMs >= LIMIT_MS - 100 && outcome.elapsedMs < LIMIT_MS + 1500, `closed after ${outcome.elapsedMs} ms`);
    assert.match(outcome.answer, /^HTTP\/1\.1 408 /);
    assert.match(outcome.answer, /"error":"the request body arrived too slowly/);
    // Job 1 was made in before(); no second one.
    assert.equal(await service.deps.store.findJob(project.project.id, '2'), null);
  });

  it('cuts request headers that never end', async () => {
    const outcome = await trickle(Number(new URL(service.url).port), 'POST /api/v1/tasks/claim HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: '.padEnd(200, 'z'), 1000);
    assert.ok(outcome.elapsedMs < LIMIT_MS + 1500, `closed after ${outcome.elapsedMs} ms`);
    assert.match(outcome.answer, /^HTTP\/1\.1 408 /);
  });

  it('cuts an artifact upload trickled below the minimum rate, and keeps nothing', async () => {
    const path = new URL(task.endpoints.artifact).pathname;
    const head =
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nX-Artifact-Path: dist/slow.bin\r\n` +
      `Content-Type: application/octet-stream\r\nContent-Length: 1000\r\n\r\n`;
    const outcome = await trickle(Number(new URL(service.url).port), head, 'x'.repeat(1000), 1000);
    // One window of LIMIT_MS, checked at its end.
    assert.ok(outcome.elapsedMs < 2 * LIMIT_MS + 1000, `closed after ${outcome.elapsedMs} ms`);
    assert.match(outcome.answer, /^HTTP\/1\.1 408 /);
    assert.deepEqual(await service.deps.store.listArtifacts(task.id, task.attempt), []);
    for (let waited = 0; waited < 3000 && leftovers(service).length > 0; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(leftovers(service), []);
  });

  it('lets an artifact upload at a normal rate take far longer than the request timeout', async () => {
    const chunk = Buffer.alloc(256 * 1024, 7);
    const chunks = 48; // 12 MiB at about 2.5 MiB/s: about 5 s, over three times the limit
    const started = Date.now();
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const outgoing = httpRequest(
        task.endpoints.artifact,
        {
          method: 'POST',
          headers: {
            authorization: `Bearer ${token}`,
            'x-artifact-path': 'dist/big.bin',
            'content-type': 'application/octet-stream',
            'content-length': chunk.length * chunks,
          },
        },
        (response) => {
          let text = '';
          response.on('data', (data: Buffer) => (text += data.toString('utf8')));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        },
      );
      outgoing.on('error', reject);
      let sent = 0;
      const next = (): void => {
        if (sent === chunks) {
          outgoing.end();
          return;
        }
        sent += 1;
        outgoing.write(chunk);
        setTimeout(next, 100);
      };
      next();
    });
    const elapsed = Date.now() - started;
    assert.equal(answer.status, 201, answer.text);
    assert.ok(elapsed > 2 * LIMIT_MS, `the upload took only ${elapsed} ms, which proves nothing`);
    assert.equal((JSON.parse(answer.text) as { size: number }).size, chunk.length * chunks);
  });

  it('does not cut a long-polling claim that waits longer than the request timeout', async () => {
    const started = Date.now();
    const response = await service.call('POST', '/api/v1/tasks/claim?wait=3', { body: claimBody({ arches: ['nothing-here'] }), token });
    assert.equal(response.status, 204);
    assert.ok(Date.now() - started >= 2900);
  });
});

function leftovers(service: TestService): string[] {
  try {
    return readdirSync(join(service.deps.config.dataPath, 'tmp'));
  } catch {
    return [];
  }
}
