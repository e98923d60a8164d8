import { findGlobFlaw } from '@conveyor/protocol';
import { readExpireIn } from './durations.js';
import { DEFAULT_WORKDIR } from './limits.js';
import { indexPath, joinPath } from './problems.js';
import type { ProblemList } from './problems.js';
import { isYamlMap, readString, readStringList } from './read-values.js';
import { reportUnknownKey } from './report-unknown-key.js';

export const ARTIFACT_KEYS = ['paths', 'expire_in'] as const;

/** What `artifacts` says: the globs, and how long the files are kept (seconds; null for the service's retention). */
export interface ArtifactSpec {
  paths: string[];
  expireIn: number | null;
}

/**
 * Reads `artifacts`: a list of globs, or a map `{paths: [globs], expire_in: <duration>}`. Globs are
 * relative to the workdir and cannot point outside it.
 */
export function readArtifacts(value: unknown, path: string, problems: ProblemList): ArtifactSpec {
  if (!isYamlMap(value)) return { paths: readGlobs(value, path, problems), expireIn: null };
  const spec: ArtifactSpec = { paths: [], expireIn: null };
  for (const [key, raw] of value) {
    const keyPath = joinPath(path, key);
    if (key === 'paths') spec.paths = readGlobs(raw, keyPath, problems);
    else if (key === 'expire_in') spec.expireIn = readExpireIn(raw, keyPath, problems) ?? null;
    else reportUnknownKey(keyPath, key, ARTIFACT_KEYS, problems);
  }
  if (!value.has('paths')) problems.add(joinPath(path, 'paths'), 'required: the globs of the files to keep');
  return spec;
}

function readGlobs(value: unknown, path: string, problems: ProblemList): string[] {
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
