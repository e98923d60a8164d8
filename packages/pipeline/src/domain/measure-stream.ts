import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { Writable } from 'node:stream';

/** The size and SHA-256 of the bytes written so far. */
export interface Measurement {
  readonly bytes: number;
  /** The SHA-256 of everything written; read once, after the writer has finished. */
  sha256(): string;
}

/**
 * A writer that hashes, counts and writes in one stream stage, each batch of chunks with a single
 * writev: a pass-through hashing stage in front of an fs write stream cost a quarter of the upload's
 * throughput (see docs/benchmarks.md). It owns `file` and closes it when it finishes or fails.
 */
export function createMeasuringWriter(file: FileHandle): { writer: Writable; measurement: Measurement } {
  const hash = createHash('sha256');
  let bytes = 0;
  const writer = new Writable({
    highWaterMark: 1024 * 1024,
    writev(chunks, callback) {
      const buffers = chunks.map(({ chunk }) => chunk as Buffer);
      for (const buffer of buffers) {
        bytes += buffer.length;
        hash.update(buffer);
      }
      file.writev(buffers).then(() => callback(), callback);
    },
    final(callback) {
      file.close().then(() => callback(), callback);
    },
    destroy(error, callback) {
      file.close().then(
        () => callback(error),
        () => callback(error),
      );
    },
  });
  return { writer, measurement: { get bytes() { return bytes; }, sha256: () => hash.digest('hex') } };
}
