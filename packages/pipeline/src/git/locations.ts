import { stat } from 'node:fs/promises';
import { hasControlCharacter } from './commit-id.js';
import { ceilingFor, describeGitFailure, runGit, type GitContext } from './git-process.js';

export type Location = { kind: 'path'; path: string } | { kind: 'url'; url: string } | { kind: 'refused'; message: string };

const URL_WITH_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
const ACCEPTED_SCHEMES = new Set(['file', 'https', 'http', 'ssh']);

/** Sorts a project's repository setting into a local path or a URL, refusing anything git would read otherwise. */
export function classifyLocation(repo: string): Location {
  if (repo === '') return { kind: 'refused', message: 'the repository location is empty' };
  if (hasControlCharacter(repo)) return { kind: 'refused', message: 'the repository location contains control characters' };
  // Never let a location reach git where it could be read as an option.
  if (repo.startsWith('-')) return { kind: 'refused', message: `the repository location '${repo}' starts with '-'` };
  const written = URL_WITH_SCHEME.exec(repo)?.[1];
  // Schemes are case-insensitive (RFC 3986) but git only knows them in lower case: `FILE://` would
  // pass the check here and then fail every fetch, so the URL handed on carries the lower-case scheme.
  if (written !== undefined) return classifyUrl(written.toLowerCase() + repo.slice(written.length), written.toLowerCase());
  // Git reads `host:path` (a colon before any slash) as scp-like ssh, and `name::address` as a
  // transport helper (ext::, fd::). Both are refused: an explicit URL says the same thing plainly.
  const colon = repo.indexOf(':');
  const slash = repo.indexOf('/');
  if (colon !== -1 && (slash === -1 || colon < slash)) {
    return {
      kind: 'refused',
      message: `'${repo}' is neither a local path nor a URL (scp-like host:path and transport:: addresses are not accepted; use ssh://, https://, http:// or file://)`,
    };
  }
  return { kind: 'path', path: repo };
}

function classifyUrl(repo: string, scheme: string): Location {
  if (!ACCEPTED_SCHEMES.has(scheme)) {
    return { kind: 'refused', message: `the URL scheme '${scheme}' is not accepted (use file, https, http or ssh)` };
  }
  try {
    new URL(repo);
  } catch {
    return { kind: 'refused', message: `'${repo}' is not a valid URL` };
  }
  return { kind: 'url', url: repo };
}

/** Null when the path is a git repository itself (bare or not), else why not. */
export async function checkLocalRepository(context: GitContext, path: string): Promise<string | null> {
  const found = await stat(path).catch(() => null);
  if (found === null) return `the repository path '${path}' does not exist`;
  if (!found.isDirectory()) return `the repository path '${path}' is not a directory`;
  const result = await runGit(context, { args: ['-C', path, 'rev-parse', '--git-dir'], ceiling: ceilingFor(path) });
  if (result.code === 0) return null;
  return `'${path}' is not a git repository (${describeGitFailure('git rev-parse', result)})`;
}

export async function checkLocation(context: GitContext, repo: string): Promise<string | null> {
  const location = classifyLocation(repo);
  if (location.kind === 'refused') return location.message;
  // A URL is only judged by its scheme: reaching the server belongs to the first fetch, not to creation.
  if (location.kind === 'url') return null;
  return checkLocalRepository(context, location.path);
}
