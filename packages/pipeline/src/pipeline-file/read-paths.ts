import { findGlobFlaw } from './check-glob.js';
import { DEFAULT_WORKDIR } from './limits.js';
import { indexPath } from './problems.js';
import type { ProblemList } from './problems.js';
import { readString, readStringList } from './read-values.js';

/** Reads `artifacts`: globs relative to the workdir that cannot point outside it. */
export function readArtifacts(value: unknown, path: string, problems: ProblemList): string[] {
  if (!Array.isArray(value)) return readStringList(value, path, problems);
  const globs: string[] = [];
  value.forEach((entry: unknown, index) => {
    const entryPath = indexPath(path, index);
    const glob = readString(entry, entryPath, problems, { nonEmpty: true });
    if (glob === undefined) return;
    const flaw = findArtifactFlaw(glob);
    if (flaw) problems.add(entryPath, flaw);
    else globs.push(glob);
  });
  return globs;
}

/** Reads `workdir`: an absolute POSIX path that does not climb with `..`. */
export function readWorkdir(value: unknown, path: string, problems: ProblemList): string {
  const workdir = readString(value, path, problems, { nonEmpty: true });
  if (workdir === undefined) return DEFAULT_WORKDIR;
  if (!workdir.startsWith('/')) problems.add(path, 'must be an absolute path (start with /)');
  else if (hasParentSegment(workdir)) problems.add(path, 'must not contain a .. segment');
  else if (workdir.includes('\0')) problems.add(path, 'must not contain a NUL character');
  return workdir;
}

function findArtifactFlaw(glob: string): string | undefined {
  if (glob.startsWith('/')) return 'must be relative to the workdir, not an absolute path';
  if (glob.includes('\\')) return 'must not contain a backslash; separate directories with /';
  if (glob.includes('\0')) return 'must not contain a NUL character';
  if (hasParentSegment(glob)) return 'must not contain a .. segment';
  const flaw = findGlobFlaw(glob);
  return flaw === undefined ? undefined : `${flaw}; see "Artifacts and workdir" in the pipeline file documentation`;
}

function hasParentSegment(path: string): boolean {
  return path.split('/').includes('..');
}
