import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, it } from 'node:test';
import { createMeasuringWriter, THREAD_SINK_BYTES, threadSinksInUse } from './measure-stream.js';

describe('createMeasuringWriter', () => {
  // Inline, and on the hashing thread through several turns of its 4 MiB ring.
  for (const size of [0, 1000, THREAD_SINK_BYTES + 3 * 1024 * 1024 + 17]) {
    it(`writes, counts and hashes ${size} bytes`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'measure-'));
      try {
        const body = randomBytes(size);
        const chunkSize = 64 * 1024 + 7;
        const chunks = Array.from({ length: Math.ceil(size / chunkSize) }, (_, i) => body.subarray(i * chunkSize, (i + 1) * chunkSize));
        const path = join(dir, 'out');
        const { writer, measurement } = createMeasuringWriter(await open(path, 'wx'), size);
        await pipeline(Readable.from(chunks), writer);
        assert.equal(measurement.bytes, size);
        assert.equal(await measurement.sha256(), createHash('sha256').update(body).digest('hex'));
        assert.ok((await readFile(path)).equals(body));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it('closes the file when the source fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'measure-'));
    try {
      const file = await open(join(dir, 'out'), 'wx');
      const { writer } = createMeasuringWriter(file, THREAD_SINK_BYTES);
      const failing = new Readable({ read() { this.destroy(new Error('connection reset')); } });
      await assert.rejects(pipeline(failing, writer), /connection reset/);
      if (!writer.closed) await new Promise((resolve) => writer.once('close', resolve));
      await assert.rejects(file.stat(), 'the handle is closed');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  // A disk error is the service's (500) and must be told apart from a body that broke off (400).
  for (const size of [1000, THREAD_SINK_BYTES]) {
    it(`reports a write the disk refuses as a storage failure (${size} bytes)`, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'measure-'));
      try {
        const path = join(dir, 'read-only');
        await writeFile(path, '');
        const { writer, measurement } = createMeasuringWriter(await open(path, 'r'), size);
        await assert.rejects(pipeline(Readable.from([randomBytes(size)]), writer), { code: 'EBADF' });
        assert.equal((measurement.storageFailure as NodeJS.ErrnoException | null)?.code, 'EBADF');
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }

  it('has no storage failure when only the body fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'measure-'));
    try {
      const { writer, measurement } = createMeasuringWriter(await open(join(dir, 'out'), 'wx'), 1000);
      const failing = new Readable({ read() { this.destroy(new Error('connection reset')); } });
      await assert.rejects(pipeline(failing, writer), /connection reset/);
      assert.equal(measurement.storageFailure, null);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stores more concurrent large uploads than there are hashing threads, each whole', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'measure-'));
    try {
      const uploads = Array.from({ length: availableParallelism() + 2 }, (_, index) => ({ index, body: randomBytes(THREAD_SINK_BYTES + index) }));
      let most = 0;
      await Promise.all(
        uploads.map(async ({ index, body }) => {
          const path = join(dir, `out-${index}`);
          const { writer, measurement } = createMeasuringWriter(await open(path, 'wx'), body.length);
          most = Math.max(most, threadSinksInUse());
          await pipeline(Readable.from([body]), writer);
          assert.equal(await measurement.sha256(), createHash('sha256').update(body).digest('hex'));
          assert.ok((await readFile(path)).equals(body));
        }),
      );
      assert.equal(most, availableParallelism(), 'one thread per core, the rest inline');
      assert.equal(threadSinksInUse(), 0, 'every thread released');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
