import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

/** A SHA-256 that takes bytes as they arrive: inline, or on a worker thread. */
export interface StreamingHash {
  /** Resolves once the chunks have been taken (at once, unless the thread's ring is full). */
  update(chunks: Buffer[]): Promise<void> | void;
  digest(): Promise<string>;
  /** Ends the hash early (a failed upload). */
  abandon(): void;
}

/** The ring the event loop copies chunks into for the hashing thread: fixed memory, no allocations. */
const RING_BYTES = 4 * 1024 * 1024;

// The thread hashes ranges of the shared ring as they are announced and acknowledges each one.
const HASH_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const ring = new Uint8Array(workerData);
const hash = require('node:crypto').createHash('sha256');
parentPort.on('message', (range) => {
  if (range === null) return parentPort.postMessage(hash.digest('hex'));
  hash.update(ring.subarray(range[0], range[0] + range[1]));
  parentPort.postMessage(range[1]);
});
`;

export function createInlineHash(): StreamingHash {
  const hash = createHash('sha256');
  return {
    update: (chunks) => {
      for (const chunk of chunks) hash.update(chunk);
    },
    digest: async () => hash.digest('hex'),
    abandon: () => undefined,
  };
}

/**
 * Hashes on a worker thread, so the digest runs beside the event loop on the other core: each chunk is
 * copied into a shared ring and its range announced; `update` waits while the ring has no room.
 */
export function createThreadHash(): StreamingHash {
  const shared = new SharedArrayBuffer(RING_BYTES);
  const ring = new Uint8Array(shared);
  const worker = new Worker(HASH_THREAD, { eval: true, workerData: shared });
  let writeAt = 0;
  let used = 0;
  let roomFreed: (() => void) | null = null;
  const digest = new Promise<string>((resolve, reject) => {
    worker.on('message', (message: number | string) => {
      if (typeof message === 'string') {
        resolve(message);
        void worker.terminate();
        return;
      }
      used -= message;
      const wake = roomFreed;
      roomFreed = null;
      wake?.();
    });
    worker.on('error', reject);
  });
  digest.catch(() => undefined);

  // Copies the batch into the ring and announces each contiguous range once (not once per chunk: a
  // message each way per 64 KiB chunk cost as much as a third of the hashing it moved away).
  async function update(chunks: Buffer[]): Promise<void> {
    let rangeStart = writeAt;
    let rangeLength = 0;
    const announce = (): void => {
      if (rangeLength > 0) worker.postMessage([rangeStart, rangeLength]);
      rangeStart = writeAt;
      rangeLength = 0;
    };
    for (const chunk of chunks) {
      for (let from = 0; from < chunk.length; ) {
        const room = Math.min(RING_BYTES - used, RING_BYTES - writeAt, chunk.length - from);
        if (room === 0) {
          announce();
          await new Promise<void>((resolve) => (roomFreed = resolve));
          rangeStart = writeAt;
          continue;
        }
        ring.set(chunk.subarray(from, from + room), writeAt);
        used += room;
        rangeLength += room;
        writeAt = (writeAt + room) % RING_BYTES;
        from += room;
        if (writeAt === 0) announce();
      }
    }
    announce();
  }

  return {
    update,
    digest() {
      worker.postMessage(null);
      return digest;
    },
    abandon: () => void worker.terminate(),
  };
}
