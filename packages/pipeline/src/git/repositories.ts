import type { Readable } from 'node:stream';

export type FileAtCommit = { kind: 'ok'; content: Buffer } | { kind: 'missing' } | { kind: 'too-large'; size: number };

export interface RepositoriesOptions {
  /** Directory under which URL repositories are mirrored (`<dataPath>/repos/<sha256 of url>.git`). */
  dataPath: string;
  /** Longest a single fetch or clone may take before it is killed. */
  fetchTimeoutMs: number;
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
