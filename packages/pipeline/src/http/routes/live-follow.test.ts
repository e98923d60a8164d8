import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClaimedTask } from '@conveyor/protocol';
import { FlakyProxy, seededRandom } from '@conveyor/kit/testing';
import { readSse } from '../../testing/sse-client.js';
import { claimBody, sign, startTestService, type TestService, type TestProject } from '../../testing/service.js';

const PIPELINE = 'tasks:\n  a:\n    image: x\n    script: [make]\n';
const octets = { 'content-type': 'application/octet-stream' };

/** Log bytes that text handling would corrupt: multi-byte characters (split across chunks), CR, CRLF, NUL, invalid UTF-8. */
function logChunk(random: () => number, size: number): Buffer {
  const pieces = ['plain line\n', 'grüße ✓ 日本語 🚀\n', 'progress 10%\rprogress 20%\r', 'crlf\r\n', '\u0000', 'data: not a field\n\n', ': not a comment\n'];
  const parts: Buffer[] = [];
  let length = 0;
  while (length < size) {
    const part = random() < 0.05 ? Buffer.from([0xff, 0xfe, 0xc3]) : Buffer.from(pieces[Math.floor(random() * pieces.length)] as string);
    parts.push(part);
    length += part.length;
  }
  return Buffer.concat(parts).subarray(0, size);
}

interface Follower {
  received: Buffer[];
  bytes(): Buffer;
  connections: number;
  ended: Promise<{ size: number }>;
}

/**
 * Follows the log as a browser would: reconnect after any break with the last id it saw, until `end`.
 * Every event's id must be the byte count after its data, so a repeated or lost byte fails here too.
 */
function follow(url: () => string, path: string, secret: string): Follower {
  const follower: Follower = { received: [], bytes: () => Buffer.concat(follower.received), connections: 0, ended: Promise.resolve({ size: 0 }) };
  follower.ended = (async () => {
    let lastId: string | null = null;
    for (;;) {
      follower.connections += 1;
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream', 'x-hub-signature-256': sign('', secret) };
        if (lastId !== null) headers['last-event-id'] = lastId;
        const response = await fetch(`${url()}${path}`, { headers });
        assert.equal(response.status, 200);
        for await (const item of readSse(response)) {
          const event = item.event;
          if (event === undefined) continue;
          const have = follower.bytes().length;
          if (event.event === 'attempt') {
            assert.deepEqual(JSON.parse(event.data), { attempt: 1 });
          } else if (event.event === 'end') {
            assert.equal(event.id, String(have), 'end comes after the last byte');
            return JSON.parse(event.data) as { size: number };
          } else {
            const bytes = Buffer.from(event.data, 'base64');
            assert.ok(bytes.length > 0 && bytes.length <= 64 * 1024);
            assert.equal(event.id, String(have + bytes.length), 'the id is the offset after the bytes');
            follower.received.push(bytes);
            lastId = event.id;
          }
        }
      } catch (error) {
        if (error instanceof assert.AssertionError) throw error;
      }
      await sleep(20);
    }
  })();
  return follower;
}

describe('following a log over server-sent events', () => {
  const services: TestService[] = [];
  const proxies: FlakyProxy[] = [];
  after(async () => {
    for (const proxy of proxies) await proxy.stop();
    for (const service of services) await service.halt().catch(() => undefined);
    if (services[0] !== undefined) await rm(services[0].dir, { recursive: true, force: true });
  });

  async function proxyTo(service: TestService, random: () => number): Promise<string> {
    const target = new URL(service.url);
    const proxy = new FlakyProxy({ host: target.hostname, port: Number(target.port) }, random, 512 * 1024);
    proxies.push(proxy);
    return `http://127.0.0.1:${await proxy.start()}`;
  }

  it('through a connection-dropping proxy and a server restart, the received bytes equal the stored log', async () => {
    const random = seededRandom(9);
    const first = await startTestService();
    services.push(first);
    const project: TestProject = await first.addProject({ name: 'live', pipeline: PIPELINE });
    const jobId = (await first.startJob(project, await project.commit({ f: 'f' }))).body.job_id;
    const { token } = await first.addWorker();
    const claim = await first.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token });
    const task = ((await claim.json()) as { task: ClaimedTask }).task;
    const logPath = `/api/v1/projects/live/jobs/${jobId}/tasks/${task.id}/log`;
    let proxyUrl = await proxyTo(first, random);
    const follower = follow(() => proxyUrl, logPath, project.secret);

    const sent: Buffer[] = [];
    let offset = 0;
    const append = async (service: TestService, count: number): Promise<void> => {
      for (let i = 0; i < count; i += 1) {
        const chunk = logChunk(random, 1 + Math.floor(random() * 96 * 1024));
        const response = await service.call('POST', `/api/v1/tasks/${task.id}/log`, { body: chunk, token, headers: { ...octets, 'x-log-offset': String(offset) } });
        assert.equal(response.status, 200);
        offset = ((await response.json()) as { offset: number }).offset;
        sent.push(chunk);
      }
    };
    await append(first, 40);
    // The follower has seen some, not necessarily all, when the server goes away.
    await first.halt();
    const beforeRestart = follower.bytes().length;
    assert.ok(beforeRestart > 0, 'the follower was reading from the first server');
    const second = await startTestService({ dir: first.dir, clock: first.clock });
    services.push(second);
    proxyUrl = await proxyTo(second, random);
    await append(second, 40);
    assert.ok(offset > 3 * 1024 * 1024, `a few MiB were appended (${offset})`);
    const done = await second.call('POST', `/api/v1/tasks/${task.id}/complete`, { body: { success: true, exit_code: 0, error: null }, token });
    assert.equal(done.status, 200);

    const end = await follower.ended;
    const stored = Buffer.from(await (await second.call('GET', logPath, { secret: project.secret })).arrayBuffer());
    assert.equal(stored.length, offset);
    assert.ok(stored.equals(Buffer.concat(sent)));
    assert.equal(end.size, stored.length);
    assert.ok(follower.bytes().equals(stored), 'the followed bytes are the stored log, byte for byte');
    const drops = proxies.reduce((sum, proxy) => sum + proxy.drops, 0);
    assert.ok(drops >= 3, `the proxy cut connections (${drops})`);
    assert.ok(follower.connections > drops, `the follower reconnected after every cut and the restart (${follower.connections})`);
  });
});
