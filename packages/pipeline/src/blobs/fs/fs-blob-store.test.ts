import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { after, before, describe, it } from 'node:test';
import { makeTempDir } from '../../git/test-repos.js';
import { BodySizeError, type BlobStore } from '../types.js';
import { createFsBlobStore, removeUnfinishedPuts } from './index.js';
import { THREAD_SINK_BYTES } from './measure-stream.js';

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** A body that sends `chunks` and then fails, as a connection that breaks off does. */
function breakingBody(chunks: Buffer[]): Readable {
  let index = 0;
  return new Readable({
    read() {
      const chunk = chunks[index];
      index += 1;
      if (chunk === undefined) this.destroy(new Error('connection reset'));
      else this.push(chunk);
    },
  });
}

describe('the file-system blob store', () => {
  let dir: { path: string; remove: () => Promise<void> };
  let blobs: BlobStore;
  const unfinished = async () => readdir(join(dir.path, 'tmp')).catch(() => []);

  before(async () => {
    dir = await makeTempDir('blobs');
    blobs = createFsBlobStore(dir.path);
  });
  after(() => dir.remove());

  it('puts a body of the declared size, hashed, at the key path, inline and on the hashing thread', async () => {
    for (const size of [0, 1000, THREAD_SINK_BYTES + 3]) {
      const bytes = randomBytes(size);
      const key = `artifacts/put-${size}`;
      const chunks = [bytes.subarray(0, 7), bytes.subarray(7)];
      assert.deepEqual(await blobs.put(key, Readable.from(chunks), size), { size, sha256: sha256(bytes) });
      assert.ok((await readFile(join(dir.path, 'artifacts', `put-${size}`))).equals(bytes));
      assert.equal(await blobs.size(key), size);
    }
    assert.deepEqual(await unfinished(), []);
  });

  it('refuses a short, a long and a broken body with BodySizeError and keeps nothing', async () => {
    const cases: [string, Readable, number, boolean][] = [
      ['short', Readable.from([Buffer.alloc(10)]), 10, false],
      ['long', Readable.from([Buffer.alloc(30)]), 30, false],
      ['broken', breakingBody([Buffer.alloc(5)]), 5, true],
    ];
    for (const [name, body, received, broken] of cases) {
      await assert.rejects(blobs.put(`artifacts/${name}`, body, 20), (error: unknown) => {
        assert.ok(error instanceof BodySizeError, name);
        assert.deepEqual([error.received, error.expected, error.broken], [received, 20, broken], name);
        return true;
      });
      assert.equal(await blobs.size(`artifacts/${name}`), null, name);
    }
    assert.deepEqual(await unfinished(), []);
  });

  it('replaces a blob only once the new body is complete', async () => {
    await blobs.put('artifacts/replaced', Readable.from([Buffer.from('old')]), 3);
    await assert.rejects(blobs.put('artifacts/replaced', breakingBody([Buffer.from('ne')]), 3), BodySizeError);
    assert.equal(await text(blobs.read('artifacts/replaced')), 'old');
    await blobs.put('artifacts/replaced', Readable.from([Buffer.from('new!')]), 4);
    assert.equal(await text(blobs.read('artifacts/replaced')), 'new!');
  });

  it('appends at an offset, overwriting an unrecorded tail, and reads inclusive ranges', async () => {
    const key = 'logs/task/1.log';
    await blobs.append(key, 0, Buffer.from('hello '));
    await blobs.append(key, 6, Buffer.from('wrold, lost tail'));
    await blobs.append(key, 6, Buffer.from('world'));
    assert.equal(await text(blobs.read(key, { start: 0, end: 10 })), 'hello world');
    assert.equal(await text(blobs.read(key, { start: 6, end: 8 })), 'wor');
    assert.equal(await blobs.size(key), 22, 'the blob keeps the tail; the recorded size says what is valid');
  });

  it('deletes, lists by prefix and has no presigned URLs', async () => {
    await blobs.append('logs/listed/1.log', 0, Buffer.from('a'));
    await blobs.append('logs/listed/2.log', 0, Buffer.from('b'));
    await blobs.append('logs/listedmore/1.log', 0, Buffer.from('c'));
    assert.deepEqual(await blobs.list('logs/listed/'), ['logs/listed/1.log', 'logs/listed/2.log']);
    assert.deepEqual(await blobs.list('logs/listed'), ['logs/listed/1.log', 'logs/listed/2.log', 'logs/listedmore/1.log']);
    assert.deepEqual(await blobs.list('nothing/'), []);
    await blobs.delete('logs/listed/1.log');
    await blobs.delete('logs/listed/1.log');
    assert.deepEqual(await blobs.list('logs/listed/'), ['logs/listed/2.log']);
    assert.equal(await blobs.presign?.('logs/listed/2.log', 60), null);
  });

  it('refuses keys that could leave its directory or reach unfinished puts', async () => {
    for (const key of ['../escape', 'logs/../../escape', '/etc/passwd', 'tmp/x', 'logs//x', '', 'logs/.hidden/..']) {
      await assert.rejects(blobs.size(key), /not a blob key/, key);
    }
  });

  it('removes puts a crash cut off', async () => {
    await mkdir(join(dir.path, 'tmp'), { recursive: true });
    await writeFile(join(dir.path, 'tmp', 'crashed.put'), 'partial');
    await removeUnfinishedPuts(dir.path);
    assert.deepEqual(await unfinished(), []);
  });
});
