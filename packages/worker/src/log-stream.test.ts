import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProtocolClient } from './client.js';
import { LogStream } from './log-stream.js';
import { LogServer, seededRandom, type Fault } from './testing/log-server.js';

async function withStream(
  server: LogServer,
  masked: string[],
  body: (stream: LogStream, rejections: string[]) => Promise<void>,
  options: { maxChunkBytes?: number; flushMs?: number; onFull?: (stored: number) => void } = {},
): Promise<void> {
  const url = await server.start();
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-log-'));
  const client = new ProtocolClient({ url: 'http://127.0.0.1:1/', token: 'test-token' });
  const rejections: string[] = [];
  try {
    const stream = await LogStream.open({ spoolPath: join(dir, 'log'), url, client, masked, onRejected: (r) => rejections.push(r), ...options });
    await body(stream, rejections);
  } finally {
    client.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

function makeOutput(random: () => number, secret: string, lines: number): string {
  const parts: string[] = [];
  for (let i = 0; i < lines; i++) parts.push(`line ${i} ${'x'.repeat(Math.floor(random() * 200))}${i % 97 === 0 ? ` token=${secret};` : ''}\n`);
  return parts.join('');
}

test('delivers the log whole and in order through dropped connections and 5xx, masking split secrets', async () => {
  const random = seededRandom(42);
  const faults: Fault[] = ['drop-before', 'drop-after', 'unavailable'];
  const server = new LogServer({ fault: () => (random() < 0.3 ? faults[Math.floor(random() * faults.length)]! : null) });
  const secret = 'sup3r-s3cret-value';
  const output = makeOutput(random, secret, 8000);
  await withStream(server, [secret], async (stream) => {
    const bytes = Buffer.from(output);
    let position = 0;
    while (position < bytes.length) {
      const size = 1 + Math.floor(random() * 3000);
      await stream.write(bytes.subarray(position, position + size));
      position += size;
    }
    assert.equal(await stream.finish(), true);
    const expected = output.split(secret).join('***');
    assert.equal(server.content().toString(), expected);
    assert.equal(stream.size, Buffer.byteLength(expected));
    assert.ok(!server.content().includes(secret));
    assert.ok(server.requests > server.appends.length, 'faults were injected');
  });
});

test('holds small output for the flush interval (250 ms by default)', async () => {
  const server = new LogServer();
  await withStream(server, [], async (stream) => {
    const written = Date.now();
    await stream.write(Buffer.from('hello\n'));
    while (server.length === 0) await new Promise((r) => setTimeout(r, 10));
    assert.ok(server.appends[0]!.at - written >= 240, `small output waited ${server.appends[0]!.at - written} ms`);
    assert.equal(await stream.finish(), true);
  });
});

test('with a long secret, output that cannot start it goes out on the flush timer, not held back by the masker', async () => {
  const server = new LogServer();
  const secret = `-----BEGIN KEY-----${'k'.repeat(2000)}`;
  await withStream(server, [secret, 'npm-token-123'], async (stream) => {
    const written = Date.now();
    await stream.write(Buffer.from('added 1312 packages in 80s\nnpm-tok'));
    while (server.length === 0 && Date.now() - written < 3_000) await new Promise((r) => setTimeout(r, 10));
    // Everything but the possible start of a secret arrives within the flush interval.
    assert.equal(server.content().toString(), 'added 1312 packages in 80s\n');
    assert.ok(Date.now() - written < 1_000, `waited ${Date.now() - written} ms`);
    await stream.write(Buffer.from('en-123 done\n'));
    assert.equal(await stream.finish(), true);
    assert.equal(server.content().toString(), 'added 1312 packages in 80s\n*** done\n');
  });
});

test('sends 64 KiB of pending output at once, without waiting for the flush interval', async () => {
  const server = new LogServer();
  // A long interval, so that only the size trigger can explain an early append, even on a loaded machine.
  await withStream(
    server,
    [],
    async (stream) => {
      const written = Date.now();
      await stream.write(Buffer.alloc(64 * 1024, 'a'));
      while (server.length < 64 * 1024) await new Promise((r) => setTimeout(r, 5));
      assert.ok(server.appends[0]!.at - written < 1_500, `a full chunk waited ${server.appends[0]!.at - written} ms`);
      await stream.write(Buffer.from('tail\n'));
      assert.equal(await stream.finish(), true);
      assert.equal(server.length, 64 * 1024 + 5);
    },
    { flushMs: 3_000 },
  );
});

test('resumes from expected_offset out of the spool when the server lost appended bytes', async () => {
  const server = new LogServer();
  await withStream(server, [], async (stream) => {
    await stream.write(Buffer.alloc(100 * 1024, 'a'));
    while (server.length < 100 * 1024) await new Promise((r) => setTimeout(r, 5));
    server.truncate(10_000);
    await stream.write(Buffer.alloc(100 * 1024, 'b'));
    assert.equal(await stream.finish(), true);
    assert.equal(server.content().toString(), 'a'.repeat(100 * 1024) + 'b'.repeat(100 * 1024));
  });
});

test('halves its chunk size when the server answers 413', async () => {
  const server = new LogServer({ maxBody: 100_000 });
  await withStream(
    server,
    [],
    async (stream) => {
      await stream.write(Buffer.alloc(1_000_000, 'z'));
      assert.equal(await stream.finish(), true);
      assert.equal(server.length, 1_000_000);
      assert.ok(server.appends.every((append) => append.size <= 100_000));
      assert.ok(server.requests <= server.appends.length + 5, `${server.requests} requests for ${server.appends.length} appends`);
    },
    { maxChunkBytes: 1024 * 1024 },
  );
});

test('stops and reports when the server refuses the log for good', async () => {
  const server = new LogServer({ fault: (n) => (n >= 1 ? 'refuse' : null) });
  await withStream(server, [], async (stream, rejections) => {
    await stream.write(Buffer.from('first\n'));
    while (server.length === 0) await new Promise((r) => setTimeout(r, 10));
    await stream.write(Buffer.from('second\n'));
    assert.equal(await stream.finish(), false);
    assert.equal(server.content().toString(), 'first\n');
    assert.match(rejections[0] ?? '', /HTTP 404/);
  });
});

test('stops sending, without losing the task, once the server refuses more log at its size limit', async () => {
  const server = new LogServer({ maxLog: 300_000 });
  let fullAt = -1;
  await withStream(
    server,
    [],
    async (stream, rejections) => {
      for (let i = 0; i < 10; i++) await stream.write(Buffer.alloc(100_000, 'q'));
      assert.equal(await stream.finish(), false);
      assert.deepEqual(rejections, []);
      assert.ok(server.length <= 300_000 && server.length >= 300_000 - 64 * 1024, `stored ${server.length}`);
      assert.equal(fullAt, server.length);
      assert.ok(server.requests < 20, `${server.requests} requests`);
    },
    { onFull: (stored) => (fullAt = stored) },
  );
});
