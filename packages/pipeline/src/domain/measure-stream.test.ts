import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, it } from 'node:test';
import { MeasuringStream } from './measure-stream.js';

describe('MeasuringStream', () => {
  for (const size of [0, 1000, 3 * 1024 * 1024 + 17]) {
    it(`counts, hashes and passes through ${size} bytes unchanged`, async () => {
      const body = randomBytes(size);
      const chunkSize = 64 * 1024 + 7;
      const chunks = Array.from({ length: Math.ceil(size / chunkSize) }, (_, i) => body.subarray(i * chunkSize, (i + 1) * chunkSize));
      const received: Buffer[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          received.push(chunk);
          setImmediate(callback);
        },
      });
      const tap = new MeasuringStream();
      await pipeline(Readable.from(chunks), tap, sink);
      assert.equal(tap.bytes, size);
      assert.equal(tap.sha256(), createHash('sha256').update(body).digest('hex'));
      assert.ok(Buffer.concat(received).equals(body));
    });
  }
});
