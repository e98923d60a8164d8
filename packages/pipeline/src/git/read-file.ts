import type { FileAtCommit } from './repositories.js';
import { hasControlCharacter, isCommitId } from './commit-id.js';
import { ceilingFor, describeGitFailure, runGit, type GitContext } from './git-process.js';

const BLOB_SIZE = /^blob (\d+)$/;

/**
 * A path inside the tree, as `<sha>:<path>` understands it. `./` and `../` would be read relative to
 * the process's directory, and an empty segment names nothing, so such paths are simply missing.
 */
function isTreePath(path: string): boolean {
  if (path === '' || hasControlCharacter(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/** Asks for the object's type and size first, so a large file is refused without being read. */
export async function readFileAtCommit(context: GitContext, directory: string, sha: string, path: string, maxBytes: number): Promise<FileAtCommit> {
  if (!isCommitId(sha) || !isTreePath(path)) return { kind: 'missing' };
  const object = `${sha}:${path}`;
  const ceiling = ceilingFor(directory);
  const check = await runGit(context, {
    args: ['-C', directory, 'cat-file', '--batch-check=%(objecttype) %(objectsize)'],
    stdin: `${object}\n`,
    ceiling,
  });
  if (check.code !== 0) throw new Error(describeGitFailure(`git cat-file in ${directory}`, check));
  // A tree (directory), a gitlink or "<object> missing" all mean there is no file to read.
  const size = BLOB_SIZE.exec(check.stdout.toString('utf8').trim())?.[1];
  if (size === undefined) return { kind: 'missing' };
  const bytes = Number(size);
  if (bytes > maxBytes) return { kind: 'too-large', size: bytes };
  const content = await runGit(context, {
    args: ['-C', directory, 'cat-file', 'blob', '--end-of-options', object],
    stdoutLimit: bytes,
    ceiling,
  });
  if (content.code !== 0) throw new Error(describeGitFailure(`git cat-file blob ${object}`, content));
  return { kind: 'ok', content: content.stdout };
}
