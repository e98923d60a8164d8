import type { Readable } from 'node:stream';

/** What a completed put stored. */
export interface StoredBlob {
  size: number;
  /** Lower-case hex SHA-256 of the bytes, computed while they were stored (never by reading them back). */
  sha256: string;
}

/** Inclusive byte positions, as in an HTTP Range. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A put whose body was not the declared size: it broke off (`broken`), or ended with another count of
 * bytes. The body's fault, not the storage's; nothing was kept. Any other error from `put` is a
 * storage failure.
 */
export class BodySizeError extends Error {
  constructor(
    readonly received: number,
    readonly expected: number,
    readonly broken: boolean,
  ) {
    super(broken ? `the body broke off after ${received} of ${expected} bytes` : `the body had ${received} bytes, not ${expected}`);
  }
}

/**
 * Where logs and artifacts keep their bytes, by key (`logs/<task>/<attempt>.log`, `artifacts/<id>`; the
 * domain names keys, see domain/logs.ts and domain/artifacts.ts). What a blob means, who may read it and
 * how long it is valid are recorded in the store; a blob store only keeps bytes. `fs/` implements it
 * on the data directory; an object store (S3) would implement it too, with `presign` answering.
 */
export interface BlobStore {
  /**
   * Stores `body` under `key`, replacing what was there, once it has ended with exactly `expectedSize`
   * bytes; it is hashed on the way in. Until then nothing is visible under `key`, and on any failure
   * nothing is left: BodySizeError for a body of the wrong size, another error for a storage failure.
   * `expectedSize` also lets an implementation choose how to store (the file system hashes large bodies
   * on a thread).
   */
  put(key: string, body: Readable, expectedSize: number): Promise<StoredBlob>;
  /**
   * Writes `bytes` at `offset` of the blob, creating it if needed. Bytes an earlier write left past
   * `offset` are overwritten or left as they are: the caller records how much of the blob is valid
   * (a log's recorded size) and reads no further.
   */
  append(key: string, offset: number, bytes: Buffer): Promise<void>;
  /** The bytes of `range` (the whole blob without one). The caller checks the range against the size it recorded. */
  read(key: string, range?: ByteRange): Readable;
  /** The blob's size in bytes, or null when there is none under `key`. */
  size(key: string): Promise<number | null>;
  /** Removes the blob; removing one that is not there is not an error. */
  delete(key: string): Promise<void>;
  /** The keys that start with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * A URL a client may fetch the blob from directly for `expiresInSeconds`, or null when this store
   * cannot hand out such URLs (the file system) and the service streams the bytes itself.
   */
  presign?(key: string, expiresInSeconds: number): Promise<string | null>;
}
