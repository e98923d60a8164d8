import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createThreadSink } from './thread-sink.js';

const MIB = 1024 * 1024;

describe('createThreadSink', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'thread-sink-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps order and content when the byte counters wrap past 2^31', { timeout: 20_000 }, async () => {
    const body = randomBytes(9 * MIB + 5);
    const path = join(dir, 'wrapped');
    const file = await open(path, 'wx');
    // Start 3 MiB below the wrap, so the count turns negative in the middle of the second ring.
    const sink = createThreadSink(file, 2 ** 31 - 3 * MIB);
    for (let at = 0; at < body.length; at += 100_003) await sink.write([body.subarray(at, at + 100_003)]);
    const sha256 = await sink.finish();
    await file.close();
    assert.equal(sha256, createHash('sha256').update(body).digest('hex'));
    assert.ok((await readFile(path)).equals(body));
  });

  it('reports a write the disk refuses instead of a digest', { timeout: 20_000 }, async () => {
    const path = join(dir, 'read-only');
    await writeFile(path, '');
    const file = await open(path, 'r');
    const sink = createThreadSink(file);
    const writing = (async () => {
      for (let i = 0; i < 64; i += 1) await sink.write([Buffer.alloc(MIB, i)]);
    })();
    await assert.rejects(Promise.all([writing, sink.finish()]), { code: 'EBADF' });
    await file.close();
    assert.equal((await readFile(path)).length, 0);
  });

  it('stops writing once abandoned, before the file is closed', { timeout: 20_000 }, async () => {
    const path = join(dir, 'abandoned');
    const file = await open(path, 'wx');
    const sink = createThreadSink(file);
    await sink.write([Buffer.alloc(MIB, 1)]);
    await sink.abandon();
    const size = (await file.stat()).size;
    await file.close();
    assert.ok(size <= MIB, `at most what was given before abandoning (${size})`);
  });
});
