import { constants } from 'node:fs';
import { lstat, open, opendir, realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { Readable } from 'node:stream';
import { compileGlob, type Glob } from '@conveyor/protocol';
import { isRetryable, type ProtocolClient } from './client.js';
import { Backoff, sleep } from './timing.js';

export interface ArtifactFile {
  /** Path relative to the workdir, `/`-separated: what the server is told. */
  path: string;
  /** The file whose bytes are sent (a link's target when the link stays inside the workdir). */
  source: string;
}

/**
 * Lists the files under `root` that match `patterns`. A pattern that names a directory takes
 * everything below it. Directory links are never descended; a file link is taken only when it
 * resolves to a regular file inside `root`, so a script cannot exfiltrate the host through a link.
 */
export async function findArtifacts(root: string, patterns: readonly string[]): Promise<{ files: ArtifactFile[]; notes: string[] }> {
  const notes: string[] = [];
  const globs: Glob[] = [];
  for (const pattern of patterns) {
    const compiled = compileGlob(pattern);
    if (compiled.glob === undefined) notes.push(`artifact pattern ${JSON.stringify(pattern.slice(0, 200))} ignored: ${compiled.problem}`);
    else globs.push(compiled.glob);
  }
  if (globs.length === 0) return { files: [], notes };
  const realRoot = await realpath(root);
  const files: ArtifactFile[] = [];
  for await (const entry of walk(root, '', false, globs)) {
    if (!entry.isLink) {
      files.push({ path: entry.path, source: join(root, entry.path) });
      continue;
    }
    const target = await realpath(join(root, entry.path)).catch(() => null);
    const inside = target !== null && (target === realRoot || target.startsWith(realRoot + sep));
    if (inside && (await lstat(target)).isFile()) files.push({ path: entry.path, source: target });
    else notes.push(`artifact ${entry.path} skipped: a link that leaves the workdir or names no file`);
  }
  return { files, notes };
}

async function* walk(root: string, prefix: string, selected: boolean, globs: Glob[]): AsyncGenerator<{ path: string; isLink: boolean }> {
  const dir = await opendir(join(root, prefix));
  const entries: { name: string; isDir: boolean; isFile: boolean; isLink: boolean }[] = [];
  for await (const entry of dir) entries.push({ name: entry.name, isDir: entry.isDirectory(), isFile: entry.isFile(), isLink: entry.isSymbolicLink() });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    const matched = selected || globs.some((glob) => glob.test(path));
    if (entry.isDir) yield* walk(root, path, matched, globs);
    else if (matched && (entry.isFile || entry.isLink)) yield { path, isLink: entry.isLink };
  }
}

export interface UploadResult {
  uploaded: number;
  bytes: number;
  /** The first file that could not be stored, with the reason. */
  failure: string | null;
}

/**
 * Uploads each file, streamed with its exact length. A failed upload starts over from the first
 * byte; one the server refuses (4xx) ends the uploads, since the outcome then cannot be complete.
 */
export async function uploadArtifacts(
  client: Pick<ProtocolClient, 'uploadArtifact'>,
  url: string,
  files: readonly ArtifactFile[],
  signal: AbortSignal,
  maxAttempts = 8,
): Promise<UploadResult> {
  const result: UploadResult = { uploaded: 0, bytes: 0, failure: null };
  for (const file of files) {
    const backoff = new Backoff(200, 5_000);
    for (let attempt = 1; ; attempt++) {
      try {
        result.bytes += await uploadOne(client, url, file);
        result.uploaded += 1;
        break;
      } catch (error) {
        if (!isRetryable(error) || attempt >= maxAttempts || signal.aborted) {
          result.failure = `${file.path}: ${(error as Error).message}`;
          return result;
        }
        await sleep(backoff.next(), signal);
      }
    }
  }
  return result;
}

async function uploadOne(client: Pick<ProtocolClient, 'uploadArtifact'>, url: string, file: ArtifactFile): Promise<number> {
  // O_NOFOLLOW: the file was checked as a regular file; a link swapped in since is refused.
  const handle = await open(file.source, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const { size } = await handle.stat();
    let opened = false;
    await client.uploadArtifact(url, file.path, size, () => {
      if (opened) throw new Error('body opened twice');
      opened = true;
      // `end` pins the body to the length already declared, even if the file grows meanwhile.
      if (size === 0) return Readable.from([]);
      return handle.createReadStream({ start: 0, end: size - 1, autoClose: false });
    });
    return size;
  } finally {
    await handle.close();
  }
}
