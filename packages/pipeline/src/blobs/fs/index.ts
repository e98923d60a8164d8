import { constants, createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BodySizeError, type BlobStore } from '../types.js';
import { createMeasuringWriter } from './measure-stream.js';

/** Where puts are written until they are complete; never a key's directory. */
const UNFINISHED = 'tmp';

const KEY_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$/;

/** Keys are made by the domain from ids, but a key that could leave the root is refused all the same. */
function checkKey(key: string): string {
  if (!KEY_PATTERN.test(key) || key.split('/').some((part) => part === '..') || key.split('/')[0] === UNFINISHED) {
    throw new Error(`not a blob key: ${JSON.stringify(key)}`);
  }
  return key;
}

let serial = 0;

/**
 * The blob store on a directory: each key is a file under `root` (so `logs/<task>/<n>.log` and
 * `artifacts/<id>` are where they have always been in the data directory). A put is written under
 * `root/tmp` and renamed into place once complete, so a half-written blob is never visible.
 */
export function createFsBlobStore(root: string): BlobStore {
  const pathOf = (key: string): string => join(root, checkKey(key));

  return {
    async put(key, body, expectedSize) {
      const destination = pathOf(key);
      const unfinished = join(root, UNFINISHED, `${process.pid}-${(serial += 1)}.put`);
      await mkdir(dirname(unfinished), { recursive: true });
      const { writer, measurement } = createMeasuringWriter(await open(unfinished, 'wx'), expectedSize);
      try {
        await pipeline(body, writer);
      } catch {
        // The writer stops its thread and closes the file after the pipeline has already failed: wait for it.
        if (!writer.closed) await new Promise((resolve) => writer.once('close', resolve));
        await rm(unfinished, { force: true });
        // A disk that cannot take the bytes is the storage's failure, not the body's.
        if (measurement.storageFailure !== null) throw measurement.storageFailure;
        throw new BodySizeError(measurement.bytes, expectedSize, true);
      }
      if (measurement.bytes !== expectedSize) {
        await rm(unfinished, { force: true });
        throw new BodySizeError(measurement.bytes, expectedSize, false);
      }
      const sha256 = await measurement.sha256();
      await mkdir(dirname(destination), { recursive: true });
      await rename(unfinished, destination);
      return { size: measurement.bytes, sha256 };
    },

    async append(key, offset, bytes) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Not O_APPEND: the write goes exactly at the offset, overwriting any tail that was never recorded.
      const file = await open(path, constants.O_WRONLY | constants.O_CREAT, 0o644);
      try {
        await file.write(bytes, 0, bytes.length, offset);
      } finally {
        await file.close();
      }
    },

    read(key, range): Readable {
      return createReadStream(pathOf(key), range === undefined ? {} : { start: range.start, end: range.end });
    },

    async size(key) {
      return stat(pathOf(key)).then(
        (found) => (found.isFile() ? found.size : null),
        () => null,
      );
    },

    async delete(key) {
      await rm(pathOf(key), { force: true });
    },

    async list(prefix) {
      // Walk only the directory the prefix names (or its parent), never the whole data directory.
      const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
      const directory = join(root, base);
      const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
      return entries
        .filter((entry) => entry.isFile())
        .map((entry) => relative(root, join(entry.parentPath ?? entry.path, entry.name)).split(sep).join('/'))
        .filter((key) => key.startsWith(prefix) && KEY_PATTERN.test(key) && key.split('/')[0] !== UNFINISHED)
        .sort();
    },

    presign: async () => null,
  };
}

/** Removes puts a crash cut off; only when nothing else may be putting (the server, at start). */
export async function removeUnfinishedPuts(root: string): Promise<void> {
  await rm(join(root, UNFINISHED), { recursive: true, force: true });
}
