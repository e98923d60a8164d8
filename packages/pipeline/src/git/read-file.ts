import type { CatFilePool } from './cat-file.js';
import { hasControlCharacter, isCommitId } from './commit-id.js';
import type { FileAtCommit } from './repositories.js';

/**
 * A path inside the tree, as `<sha>:<path>` understands it. `./` and `../` would be read relative to
 * the process's directory, and an empty segment names nothing, so such paths are simply missing.
 */
function isTreePath(path: string): boolean {
  if (path === '' || hasControlCharacter(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * Asks for the object's type and size first, so a large file is refused without git even sending it;
 * the read itself is bounded too (its bytes are skipped above the limit).
 */
export async function readFileAtCommit(catFile: CatFilePool, directory: string, sha: string, path: string, maxBytes: number): Promise<FileAtCommit> {
  if (!isCommitId(sha) || !isTreePath(path)) return { kind: 'missing' };
  // `^{commit}`: a tree's id would otherwise do as well as a commit's (an annotated tag still peels).
  const object = `${sha}^{commit}:${path}`;
  const info = await catFile.info(directory, object);
  // A tree (directory), a gitlink or a missing commit or path all mean there is no file to read.
  if (info === null || info.type !== 'blob') return { kind: 'missing' };
  if (info.size > maxBytes) return { kind: 'too-large', size: info.size };
  // Ask for the object id just seen: the same bytes whatever happens to the repository meanwhile.
  const read = await catFile.contents(directory, info.oid, maxBytes);
  if (read === null) return { kind: 'missing' };
  if (read.content === null) return { kind: 'too-large', size: read.size };
  return { kind: 'ok', content: read.content };
}
