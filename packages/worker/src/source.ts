import { chown, mkdir } from 'node:fs/promises';
import { posix, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { x as extractTar, type ReadEntry } from 'tar';

/** Entry kinds a source tree may contain; devices, FIFOs and the like are never created. */
const ALLOWED_TYPES = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);

/**
 * Extracts a gzip tar stream into `dir` without ever writing outside it. An entry is skipped
 * (and reported) when its path climbs out of `dir`, when it is a link whose target resolves
 * outside `dir`, or when it is not a plain file, directory or link. node-tar additionally refuses
 * to write through a symbolic link, so a link planted by one entry cannot redirect a later one.
 * `dir` is created 0700; with `owner` (`--run-as`) it and everything extracted belong to that user.
 */
export async function extractSource(archive: Readable, dir: string, owner: { uid: number; gid: number } | null = null): Promise<{ skipped: string[] }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (owner !== null) await chown(dir, owner.uid, owner.gid);
  const skipped: string[] = [];
  const root = resolve(dir);
  const unpack = extractTar({
    cwd: root,
    strict: true,
    preservePaths: false,
    preserveOwner: false,
    ...(owner === null ? {} : { uid: owner.uid, gid: owner.gid }),
    noChmod: false,
    filter: (path, entry) => {
      const reason = unsafeReason(path, entry as ReadEntry);
      if (reason !== null) skipped.push(`${path}: ${reason}`);
      return reason === null;
    },
  });
  // Gunzip explicitly: the spec names a gzip archive, so nothing is left to format detection.
  await pipeline(archive, createGunzip(), unpack);
  return { skipped };
}

function unsafeReason(path: string, entry: ReadEntry): string | null {
  if (!ALLOWED_TYPES.has(entry.type)) return `unsupported entry type ${entry.type}`;
  if (!isPlainRelative(path)) return 'path leaves the source directory';
  if (entry.type === 'SymbolicLink') {
    const target = normalise(entry.linkpath ?? '');
    if (target.startsWith('/')) return 'absolute link target';
    // Resolved lexically from the link's own directory; a link may climb as long as it stays inside.
    const landed = posix.normalize(posix.join(posix.dirname(normalise(path)), target));
    if (landed === '..' || landed.startsWith('../')) return 'link target leaves the source directory';
  }
  if (entry.type === 'Link' && !isPlainRelative(entry.linkpath ?? '')) return 'hard link target leaves the source directory';
  return null;
}

function normalise(path: string): string {
  return path.replace(/\\/g, '/');
}

/** A relative path with no `..` component and no drive or root prefix. */
function isPlainRelative(path: string): boolean {
  const normal = normalise(path);
  if (normal === '' || normal.startsWith('/') || /^[a-zA-Z]:/.test(normal)) return false;
  return !normal.split('/').includes('..');
}
