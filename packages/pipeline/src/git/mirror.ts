import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describeGitFailure, runGit, type GitContext } from './git-process.js';

export function mirrorPathFor(dataPath: string, url: string): string {
  return join(dataPath, 'repos', `${createHash('sha256').update(url).digest('hex')}.git`);
}

export async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

/** Clones the mirror the first time, fetches into it later; null on success, else why it failed. */
export async function updateMirror(context: GitContext, url: string, mirror: string, timeoutMs: number): Promise<string | null> {
  if (await isDirectory(mirror)) return fetchMirror(context, mirror, timeoutMs);
  return cloneMirror(context, url, mirror, timeoutMs);
}

/** Clones beside the final place and renames, so a killed clone never leaves a mirror that looks usable. */
async function cloneMirror(context: GitContext, url: string, mirror: string, timeoutMs: number): Promise<string | null> {
  await mkdir(dirname(mirror), { recursive: true });
  const temporary = `${mirror}.tmp-${randomBytes(6).toString('hex')}`;
  const result = await runGit(context, { args: ['clone', '--mirror', '--quiet', '--', url, temporary], timeoutMs });
  if (result.code !== 0) {
    await rm(temporary, { recursive: true, force: true });
    return describeGitFailure(`git clone --mirror ${url}`, result);
  }
  await rename(temporary, mirror);
  return null;
}

async function fetchMirror(context: GitContext, mirror: string, timeoutMs: number): Promise<string | null> {
  const result = await runGit(context, { args: ['-C', mirror, 'fetch', '--prune', '--quiet', 'origin'], timeoutMs });
  if (result.code === 0) return null;
  if (result.timedOut) await removeStaleLocks(mirror);
  return describeGitFailure('git fetch', result);
}

/**
 * A fetch killed while updating refs leaves `*.lock` files that would make every later fetch fail.
 * Only this process writes the mirror, one fetch at a time, so once it is killed no lock is live.
 */
async function removeStaleLocks(mirror: string): Promise<void> {
  await removeLockFiles(mirror, false);
  await removeLockFiles(join(mirror, 'refs'), true);
}

async function removeLockFiles(directory: string, recursive: boolean): Promise<void> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isFile() && entry.name.endsWith('.lock')) await rm(path, { force: true });
    else if (recursive && entry.isDirectory()) await removeLockFiles(path, true);
  }
}
