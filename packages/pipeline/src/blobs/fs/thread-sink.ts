import type { FileHandle } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { UploadSink } from './upload-sink.js';

/** The ring the event loop copies chunks into: fixed memory, a power of two so positions wrap with a mask. */
const RING_BYTES = 4 * 1024 * 1024;

/** The thread is woken once this much has arrived (or the body ended): a wake-up per 64 KiB chunk cost a tenth of its time. */
const WAKE_BYTES = 256 * 1024;

// Slots of the control block. PRODUCED and CONSUMED count bytes modulo 2^32 (int32 wrapping); their
// difference is what the ring holds, at most RING_BYTES. SIGNAL changes whenever the event loop wants the
// thread awake (WAKE_BYTES more, a full ring, a new state); the thread reads it before it looks for work,
// so it never sleeps through one.
const PRODUCED = 0;
const CONSUMED = 1;
const STATE = 2; // 0 while bytes may still come
const SIGNAL = 3;
const FINISHED = 1;
const ABANDONED = 2;

// The thread waits on SIGNAL, hashes and writes each contiguous stretch of the ring, then publishes
// CONSUMED. It owns the file's writes; the event loop only copies and counts.
const SINK_THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const hash = require('node:crypto').createHash('sha256');
const { ring: shared, control: controlShared, fd, mask, origin } = workerData;
const ring = new Uint8Array(shared);
const control = new Int32Array(controlShared);
let consumed = origin | 0;
try {
  for (;;) {
    const signal = Atomics.load(control, ${SIGNAL});
    const state = Atomics.load(control, ${STATE});
    if (state === ${ABANDONED}) break;
    const produced = Atomics.load(control, ${PRODUCED});
    if (produced === consumed) {
      if (state === ${FINISHED}) {
        parentPort.postMessage({ sha256: hash.digest('hex') });
        break;
      }
      Atomics.wait(control, ${SIGNAL}, signal);
      continue;
    }
    const start = consumed & mask;
    const length = Math.min((produced - consumed) | 0, ring.length - start);
    const stretch = ring.subarray(start, start + length);
    hash.update(stretch);
    for (let at = 0; at < length; ) at += writeSync(fd, stretch, at, length - at);
    consumed = (consumed + length) | 0;
    Atomics.store(control, ${CONSUMED}, consumed);
    Atomics.notify(control, ${CONSUMED});
  }
} catch (error) {
  parentPort.postMessage({ error: String(error && error.message), code: error && error.code });
}
`;

/**
 * Hashes and writes on a worker thread, so SHA-256 (about 1.1 GB/s on these cores) and the write calls
 * run beside the event loop. The event loop copies each chunk into a shared ring and bumps a counter;
 * there is no message per chunk, and the chunk is garbage at once, so request buffers die young instead
 * of reaching the old generation, where they cost V8 full collections (see docs/benchmarks.md).
 * `origin` is where the byte counters start; tests start them just below the int32 wrap.
 */
export function createThreadSink(file: FileHandle, origin = 0): UploadSink {
  const shared = new SharedArrayBuffer(RING_BYTES);
  const ringBytes = Buffer.from(shared);
  const control = new Int32Array(new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(SINK_THREAD, {
    eval: true,
    workerData: { ring: shared, control: control.buffer, fd: file.fd, mask: RING_BYTES - 1, origin },
  });
  let produced = origin | 0;
  Atomics.store(control, PRODUCED, produced);
  Atomics.store(control, CONSUMED, produced);
  let unsignaled = 0;
  let failure: Error | null = null;
  const digest = new Promise<string>((resolve, reject) => {
    worker.once('message', (message: { sha256?: string; error?: string; code?: string }) => {
      if (typeof message.sha256 === 'string') resolve(message.sha256);
      else {
        failure = Object.assign(new Error(message.error ?? 'the upload thread failed'), { code: message.code });
        reject(failure);
      }
    });
    worker.once('error', (error) => {
      failure = error;
      reject(error);
    });
    worker.once('exit', () => reject(failure ?? new Error('the upload thread stopped')));
  });
  digest.catch(() => undefined);

  function signal(): void {
    unsignaled = 0;
    Atomics.add(control, SIGNAL, 1);
    Atomics.notify(control, SIGNAL);
  }

  // Waits until the thread has freed some of the ring (or has failed).
  async function roomFreed(): Promise<void> {
    const consumed = Atomics.load(control, CONSUMED);
    if (((produced - consumed) | 0) < RING_BYTES) return;
    signal();
    const waiting = Atomics.waitAsync(control, CONSUMED, consumed, 1000);
    if (waiting.async) await Promise.race([waiting.value, digest]);
  }

  // Copies what fits now; returns how much of the chunk was taken.
  function copyIn(chunk: Buffer, from: number): number {
    const start = produced & (RING_BYTES - 1);
    const held = (produced - Atomics.load(control, CONSUMED)) | 0;
    const room = Math.min(RING_BYTES - held, RING_BYTES - start, chunk.length - from);
    if (room <= 0) return 0;
    // fill() with a buffer of exactly the range's length is one plain memcpy. ring.set() on shared memory
    // copies byte by byte whenever source and target are not equally aligned, which request bodies
    // (chunks cut after the headers) nearly always are: 1.1 GB/s against 13 here.
    ringBytes.fill(from === 0 && room === chunk.length ? chunk : chunk.subarray(from, from + room), start, start + room);
    produced = (produced + room) | 0;
    Atomics.store(control, PRODUCED, produced);
    unsignaled += room;
    if (unsignaled >= WAKE_BYTES) signal();
    return room;
  }

  async function writeWaiting(chunks: Buffer[], index: number, from: number): Promise<void> {
    for (; index < chunks.length; index += 1, from = 0) {
      const chunk = chunks[index] as Buffer;
      while (from < chunk.length) {
        if (failure !== null) throw failure;
        const taken = copyIn(chunk, from);
        if (taken === 0) await roomFreed();
        from += taken;
      }
    }
  }

  return {
    // The common case needs no promise: there is room, so copy and return.
    write(chunks) {
      for (let index = 0; index < chunks.length; index += 1) {
        const chunk = chunks[index] as Buffer;
        const taken = failure === null ? copyIn(chunk, 0) : 0;
        if (taken < chunk.length) return writeWaiting(chunks, index, taken);
      }
    },
    finish() {
      Atomics.store(control, STATE, FINISHED);
      signal();
      return digest;
    },
    // Resolves once the thread has stopped: only then may the file (and its descriptor number) be closed.
    async abandon() {
      Atomics.store(control, STATE, ABANDONED);
      signal();
      await worker.terminate();
    },
  };
}
