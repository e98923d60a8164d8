import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/**
 * A pass-through stage that counts and hashes what flows through it, so an upload is read once.
 * (Hashing on a worker thread was tried: it raised peak memory by ~90 MB and gained nothing measurable
 * once uploads were written in 1 MiB blocks; see docs/benchmarks.md.)
 */
export class MeasuringStream extends Transform {
  bytes = 0;
  private hash = createHash('sha256');

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    this.hash.update(chunk);
    callback(null, chunk);
  }

  /** The SHA-256 of everything that passed; call once, after the stream has finished. */
  sha256(): string {
    return this.hash.digest('hex');
  }
}
