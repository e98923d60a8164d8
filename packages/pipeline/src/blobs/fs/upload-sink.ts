import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';

/** Where a measured upload's bytes go: hashed and written to the file, in arrival order. */
export interface UploadSink {
  /** Resolves once the chunks have been taken (at once, unless the sink is full). */
  write(chunks: Buffer[]): Promise<void> | void;
  /** Resolves with the SHA-256 once every byte taken is in the file. */
  finish(): Promise<string>;
  /** Stops early (a failed upload); resolves once nothing writes to the file any more. */
  abandon(): Promise<void>;
}

/** Hashes on the event loop and writes each batch with one writev: for bodies too small to pay for a thread. */
export function createInlineSink(file: FileHandle): UploadSink {
  const hash = createHash('sha256');
  return {
    async write(chunks) {
      for (const chunk of chunks) hash.update(chunk);
      await file.writev(chunks);
    },
    finish: async () => hash.digest('hex'),
    abandon: async () => undefined,
  };
}
