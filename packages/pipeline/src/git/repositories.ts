import type { Readable } from 'node:stream';
import { failedStream, streamArchive } from './archive.js';
import { createCatFilePool, type CatFilePool } from './cat-file.js';
import { hasControlCharacter, isCommitId } from './commit-id.js';
import { createFetchQueue } from './fetch-queue.js';
import { ceilingFor, runGit, type GitContext } from './git-process.js';
import { checkLocation, classifyLocation, type Location } from './locations.js';
import { isDirectory, mirrorPathFor, updateMirror } from './mirror.js';
import { readFileAtCommit } from './read-file.js';
import { readCommitSubject } from './commit-subject.js';
import { redactUrlCredentials } from './redact.js';

export type CommitLookup = { found: true } | { found: false; reason: string };

export type RefLookup = { found: true; sha: string; ref: string } | { found: false; reason: string };

export type FileAtCommit = { kind: 'ok'; content: Buffer } | { kind: 'missing' } | { kind: 'too-large'; size: number };

export interface RepositoriesOptions {
  /** Directory under which URL repositories are mirrored (`<dataPath>/repos/<sha256 of url>.git`). */
  dataPath: string;
  /** Longest a single fetch or clone may take before it is killed. */
  fetchTimeoutMs: number;
  /** Called with every git argument list before it runs (lets tests count fetches against real git). */
  observeGit?: (args: readonly string[]) => void;
  /** How long an unused `git cat-file` process is kept (default 30 s). */
  catFileIdleMs?: number;
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
  /**
   * As `ensureCommit`, and when the commit is not there, why: the refused location, or git's own
   * account of a failed fetch (credentials in URLs masked), fit for the caller and the server log.
   */
  findCommit(repo: string, sha: string): Promise<CommitLookup>;
  /**
   * The commit a branch or tag (a short name, `refs/heads/...` or `refs/tags/...`) names now, with the
   * full ref that matched; branches win over tags of the same name. A URL repository's mirror is
   * fetched first, since the ref may have moved since the last fetch.
   */
  resolveRef(repo: string, ref: string): Promise<RefLookup>;
  /** Reads a file at a commit, refusing it above `maxBytes` without reading it. */
  readFile(repo: string, sha: string, path: string, maxBytes: number): Promise<FileAtCommit>;
  /**
   * The commit's subject line (`git log --format=%s`), or null when it cannot be read (no such commit,
   * an unusable repository, a commit object above 64 KiB). Call after `findCommit` found the commit.
   */
  commitSubject(repo: string, sha: string): Promise<string | null>;
  /** The tree at a commit as a gzip tar stream (`git archive`); errors surface as stream errors. */
  archive(repo: string, sha: string): Readable;
  /** Ends the long-lived git processes; call once nothing uses the repositories any more. */
  close(): Promise<void>;
}

const NULL_COMMIT = '0'.repeat(40);

/** What may be handed to git as a ref to resolve: no options, no revision syntax, no control characters. */
function isRefName(ref: string): boolean {
  if (ref === '' || ref.length > 1024 || ref.startsWith('-') || hasControlCharacter(ref)) return false;
  return !/[\s~^:?*[\\]|\.\.|@\{|\/\/|\/$|\.lock$|^\/|\.$/.test(ref);
}

/**
 * An annotated tag's id peels to its commit, as before. A repository git cannot open (a path that is
 * gone) has no commits: the failure is the same answer the caller gets for an unknown sha.
 */
async function hasCommit(catFile: CatFilePool, directory: string, sha: string): Promise<boolean> {
  try {
    return (await catFile.info(directory, `${sha}^{commit}`))?.type === 'commit';
  } catch {
    return false;
  }
}

/**
 * The fetch queue is per instance: two instances over one dataPath would not see each other's fetches,
 * so the service is expected to create one.
 */
export function createRepositories(options: RepositoriesOptions): Repositories {
  const context: GitContext = { observe: options.observeGit };
  const catFile = createCatFilePool({ context, ceilingOf: ceilingFor, idleMs: options.catFileIdleMs });
  const directoryOf = (location: Location & { kind: 'path' | 'url' }): string =>
    location.kind === 'path' ? location.path : mirrorPathFor(options.dataPath, location.url);

  /** Resolves to null when the fetch succeeded or was not needed, else git's account of the failure. */
  const queue = createFetchQueue<string | null>(async (url, shas) => {
    const mirror = mirrorPathFor(options.dataPath, url);
    // The fetch that ran while these callers waited may already have brought what they need.
    if (await isDirectory(mirror)) {
      const present = await Promise.all([...shas].map((sha) => hasCommit(catFile, mirror, sha)));
      if (present.every(Boolean)) return null;
    }
    const failure = await updateMirror(context, url, mirror, options.fetchTimeoutMs).catch((error: unknown) =>
      error instanceof Error ? error.message : String(error),
    );
    // A process started before the mirror was cloned (or replaced) must not answer for the new one.
    catFile.retire(mirror);
    return failure;
  });

  async function findCommit(repo: string, sha: string): Promise<CommitLookup> {
    if (!isCommitId(sha)) return { found: false, reason: `'${sha}' is not a full 40-hex commit id` };
    const location = classifyLocation(repo);
    if (location.kind === 'refused') return { found: false, reason: `the project's repository is unusable: ${location.message}` };
    const directory = directoryOf(location);
    const missing = { found: false, reason: `${sha} is not a commit of the project's repository; push it first` } as const;
    if (location.kind === 'path') return (await hasCommit(catFile, directory, sha)) ? { found: true } : missing;
    if ((await isDirectory(directory)) && (await hasCommit(catFile, directory, sha))) return { found: true };
    const failure = await queue.request(location.url, sha);
    if ((await isDirectory(directory)) && (await hasCommit(catFile, directory, sha))) return { found: true };
    if (failure === null) return missing;
    return {
      found: false,
      reason: redactUrlCredentials(`${sha} could not be fetched (${failure}); check the project's repository URL and the service's access to it`),
    };
  }

  async function resolveRef(repo: string, ref: string): Promise<RefLookup> {
    if (!isRefName(ref)) return { found: false, reason: `'${ref}' is not a branch or tag name` };
    const location = classifyLocation(repo);
    if (location.kind === 'refused') return { found: false, reason: `the project's repository is unusable: ${location.message}` };
    const directory = directoryOf(location);
    if (location.kind === 'url') {
      // The null id is never a commit, so the queue always fetches (sharing a fetch already queued).
      const failure = await queue.request(location.url, NULL_COMMIT);
      if (failure !== null) {
        return { found: false, reason: redactUrlCredentials(`the repository could not be fetched (${failure}); check its URL and the service's access to it`) };
      }
    }
    const candidates = ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
    for (const candidate of candidates) {
      const result = await runGit(context, {
        args: ['-C', directory, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${candidate}^{commit}`],
        ceiling: ceilingFor(directory),
      });
      const sha = result.stdout.toString('utf8').trim();
      if (result.code === 0 && isCommitId(sha)) return { found: true, sha, ref: candidate };
    }
    return { found: false, reason: `no branch or tag '${ref}' in the project's repository; push it first, or give a commit id` };
  }

  return {
    checkLocation: (repo) => checkLocation(context, repo),

    resolveRef,

    findCommit,

    async ensureCommit(repo, sha) {
      return (await findCommit(repo, sha)).found;
    },

    async readFile(repo, sha, path, maxBytes) {
      const location = classifyLocation(repo);
      if (location.kind === 'refused') return { kind: 'missing' };
      const directory = directoryOf(location);
      // A URL whose mirror was never made has no commits yet.
      if (location.kind === 'url' && !(await isDirectory(directory))) return { kind: 'missing' };
      return readFileAtCommit(catFile, directory, sha, path, maxBytes);
    },

    async commitSubject(repo, sha) {
      const location = classifyLocation(repo);
      if (location.kind === 'refused') return null;
      try {
        return await readCommitSubject(catFile, directoryOf(location), sha);
      } catch {
        // The subject is shown where known; a git failure here must not refuse a job.
        return null;
      }
    },

    archive(repo, sha) {
      const location = classifyLocation(repo);
      if (location.kind === 'refused') return failedStream(location.message);
      return streamArchive(context, directoryOf(location), sha);
    },

    close: () => catFile.close(),
  };
}
