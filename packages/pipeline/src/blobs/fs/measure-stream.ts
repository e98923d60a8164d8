import type { FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { Writable } from 'node:stream';
import { createThreadSink } from './thread-sink.js';
import { createInlineSink, type UploadSink } from './upload-sink.js';

/** The size and SHA-256 of the bytes written. */
export interface Measurement {
  readonly bytes: number;
  /** The SHA-256 of everything written; known once the writer has finished. */
  sha256(): Promise<string>;
  /** Why the bytes could not be stored (a disk error), as opposed to the body failing; null if they could. */
  readonly storageFailure: Error | null;
}

/** Bodies at least this large are hashed and written on a worker thread; for smaller ones a thread costs more than it saves. */
export const THREAD_SINK_BYTES = 8 * 1024 * 1024;

/**
 * At most one thread per core: each costs about 18 MB (its V8 isolate and the ring), and more threads
 * than cores would only take turns. Further large uploads meanwhile hash on the event loop.
 */
const MAX_THREAD_SINKS = Math.max(1, availableParallelism());
let threadSinks = 0;

/** How many uploads are being stored by a thread now (for tests). */
export function threadSinksInUse(): number {
  return threadSinks;
}

function chooseSink(file: FileHandle, expectedBytes: number): UploadSink {
  if (expectedBytes < THREAD_SINK_BYTES || threadSinks >= MAX_THREAD_SINKS) return createInlineSink(file);
  threadSinks += 1;
  let released = false;
  const release = (): void => {
    if (!released) threadSinks -= 1;
    released = true;
  };
  const sink = createThreadSink(file);
  return {
    write: (chunks) => sink.write(chunks),
    finish: () => sink.finish().finally(release),
    abandon: () => sink.abandon().finally(release),
  };
}

/**
 * A writer that counts the bytes and hands them to a sink that hashes and writes them. Large bodies go
 * to a worker thread: inline SHA-256 (about 1.1 GB/s here) alone would hold an upload to two thirds of
 * what a plain copy to disk reaches (see docs/benchmarks.md).
 * The writer owns `file` and closes it when it finishes or fails.
 */
export function createMeasuringWriter(file: FileHandle, expectedBytes: number): { writer: Writable; measurement: Measurement } {
  const sink = chooseSink(file, expectedBytes);
  let bytes = 0;
  let digest: Promise<string> | null = null;
  let storageFailure: Error | null = null;
  const failStorage = (error: Error): Error => (storageFailure = error);
  const writer = new Writable({
    // One request chunk: a chunk waiting here while the sink is full survives young collections, and
    // promoted request buffers are what made V8 run full collections back to back.
    highWaterMark: 64 * 1024,
    writev(chunks, callback) {
      const buffers = chunks.map(({ chunk }) => chunk as Buffer);
      for (const buffer of buffers) bytes += buffer.length;
      const taking = sink.write(buffers);
      if (taking === undefined) callback();
      else taking.then(() => callback(), (error: Error) => callback(failStorage(error)));
    },
    final(callback) {
      digest = sink.finish();
      digest.then(() => file.close()).then(
        () => callback(),
        (error: Error) => callback(failStorage(error)),
      );
    },
    destroy(error, callback) {
      const stopped = digest === null ? sink.abandon() : digest.then(() => undefined);
      stopped
        .catch(() => undefined)
        .then(() => file.close())
        .then(
          () => callback(error),
          () => callback(error),
        );
    },
  });
  const measurement: Measurement = {
    get bytes() {
      return bytes;
    },
    sha256: () => digest ?? Promise.reject(new Error('the upload has not finished')),
    get storageFailure() {
      return storageFailure;
    },
  };
  return { writer, measurement };
}
