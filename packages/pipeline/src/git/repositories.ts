import type { Readable } from 'node:stream';
import { failedStream, streamArchive } from './archive.js';
import { isCommitId } from './commit-id.js';
import { createFetchQueue } from './fetch-queue.js';
import { ceilingFor, runGit, type GitContext } from './git-process.js';
import { checkLocation, classifyLocation, type Location } from './locations.js';
import { isDirectory, mirrorPathFor, updateMirror } from './mirror.js';
import { readFileAtCommit } from './read-file.js';

export type FileAtCommit = { kind: 'ok'; content: Buffer } | { kind: 'missing' } | { kind: 'too-large'; size: number };

export interface RepositoriesOptions {
  /** Directory under which URL repositories are mirrored (`<dataPath>/repos/<sha256 of url>.git`). */
  dataPath: string;
  /** Longest a single fetch or clone may take before it is killed. */
  fetchTimeoutMs: number;
  /** Called with every git argument list before it runs (lets tests count fetches against real git). */
  observeGit?: (args: readonly string[]) => void;
}

/**
 * Read access to the projects' git repositories through the git CLI (argument lists, never a shell).
 * A repository is a local path (bare or not) or a URL (file://, https://, ssh://) that is mirrored
 * under dataPath and fetched when a requested commit is missing, one fetch at a time per repository.
 */
export interface Repositories {
  /** Checks that `repo` is a usable local repository path or an accepted URL; returns a message when not. */
  checkLocation(repo: string): Promise<string | null>;
  /** True when `sha` (40 hex) names a commit of the repository, fetching the mirror first if needed. */
  ensureCommit(repo: string, sha: string): Promise<boolean>;
  /** Reads a file at a commit, refusing it above `maxBytes` without reading it. */
  readFile(repo: string, sha: string, path: string, maxBytes: number): Promise<FileAtCommit>;
  /** The tree at a commit as a gzip tar stream (`git archive`); errors surface as stream errors. */
  archive(repo: string, sha: string): Readable;
}

async function hasCommit(context: GitContext, directory: string, sha: string): Promise<boolean> {
  const result = await runGit(context, {
    args: ['-C', directory, 'cat-file', '-e', '--end-of-options', `${sha}^{commit}`],
    ceiling: ceilingFor(directory),
  });
  return result.code === 0;
}

/**
 * The fetch queue is per instance: two instances over one dataPath would not see each other's fetches,
 * so the service is expected to create one.
 */
export function createRepositories(options: RepositoriesOptions): Repositories {
  const context: GitContext = { observe: options.observeGit };
  const directoryOf = (location: Location & { kind: 'path' | 'url' }): string =>
    location.kind === 'path' ? location.path : mirrorPathFor(options.dataPath, location.url);

  const queue = createFetchQueue(async (url, shas) => {
    const mirror = mirrorPathFor(options.dataPath, url);
    // The fetch that ran while these callers waited may already have brought what they need.
    if (await isDirectory(mirror)) {
      const present = await Promise.all([...shas].map((sha) => hasCommit(context, mirror, sha)));
      if (present.every(Boolean)) return;
    }
    // A failed fetch leaves the commit missing, which is the answer ensureCommit gives.
    await updateMirror(context, url, mirror, options.fetchTimeoutMs).catch(() => undefined);
  });

  return {
    checkLocation: (repo) => checkLocation(context, repo),

    async ensureCommit(repo, sha) {
      if (!isCommitId(sha)) return false;
      const location = classifyLocation(repo);
      if (location.kind === 'refused') return false;
      const directory = directoryOf(location);
      if (location.kind === 'path') return hasCommit(context, directory, sha);
      if ((await isDirectory(directory)) && (await hasCommit(context, directory, sha))) return true;
      await queue.request(location.url, sha);
      return (await isDirectory(directory)) && hasCommit(context, directory, sha);
    },

    async readFile(repo, sha, path, maxBytes) {
      const location = classifyLocation(repo);
      if (location.kind === 'refused') return { kind: 'missing' };
      const directory = directoryOf(location);
      // A URL whose mirror was never made has no commits yet.
      if (location.kind === 'url' && !(await isDirectory(directory))) return { kind: 'missing' };
      return readFileAtCommit(context, directory, sha, path, maxBytes);
    },

    archive(repo, sha) {
      const location = classifyLocation(repo);
      if (location.kind === 'refused') return failedStream(location.message);
      return streamArchive(context, directoryOf(location), sha);
    },
  };
}
