import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

export const CHUNK_BYTES = 64 * 1024;

/**
 * A pool of random 64 KiB blocks. Bodies are built from it so that two uploads carry exactly the same
 * bytes and producing them costs a memcpy per chunk, not a random-number generator on the shared cores.
 */
export function randomPool(blocks = 16): Buffer[] {
  return Array.from({ length: blocks }, () => randomBytes(CHUNK_BYTES));
}

/** Chunk `index` of a body: a pool block (in a scrambled order), stamped with the index so no two chunks repeat. */
export function chunkAt(pool: readonly Buffer[], index: number, size = CHUNK_BYTES): Buffer {
  const block = pool[(index * 7 + (index >>> 4)) % pool.length] as Buffer;
  const chunk = Buffer.allocUnsafe(size);
  block.copy(chunk, 0, 0, size);
  if (size >= 4) chunk.writeUInt32LE(index >>> 0, 0);
  return chunk;
}

/**
 * A stream of exactly `length` pseudo-random bytes in 64 KiB chunks, made as they are read: never more
 * than the stream's buffer in memory. `onProgress` sees the running byte count.
 */
export function generatedBody(pool: readonly Buffer[], length: number, onProgress?: (bytes: number) => void): Readable {
  let sent = 0;
  let index = 0;
  return new Readable({
    highWaterMark: 4 * CHUNK_BYTES,
    read() {
      if (sent >= length) {
        this.push(null);
        return;
      }
      const size = Math.min(CHUNK_BYTES, length - sent);
      const chunk = chunkAt(pool, index, size);
      index += 1;
      sent += size;
      onProgress?.(sent);
      this.push(chunk);
    },
  });
}
