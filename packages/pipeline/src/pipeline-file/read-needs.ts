import { indexPath, shortenKey } from './problems.js';
import type { ProblemList } from './problems.js';
import { readString, reportWrongType } from './read-values.js';

/** A `needs` entry naming a task of the file, with where it is written, for reporting cycles. */
export interface NeedReference {
  baseName: string;
  path: string;
}

/** Reads `needs`: base names of this file's tasks, one string or a list, repeats dropped. */
export function readNeeds(raw: unknown, path: string, baseNames: ReadonlySet<string>, problems: ProblemList): NeedReference[] {
  const entries = typeof raw === 'string' ? [raw] : raw;
  if (!Array.isArray(entries)) {
    reportWrongType(raw, 'a list of task names or a single task name', path, problems);
    return [];
  }
  const needs: NeedReference[] = [];
  const seen = new Set<string>();
  entries.forEach((entry: unknown, index) => {
    // A single string is reported at `needs`, a list entry at `needs[i]`.
    const entryPath = typeof raw === 'string' ? path : indexPath(path, index);
    const name = readString(entry, entryPath, problems);
    if (name === undefined || seen.has(name)) return;
    if (!baseNames.has(name)) {
      problems.add(entryPath, `no task named "${shortenKey(name)}" in this file`);
      return;
    }
    seen.add(name);
    needs.push({ baseName: name, path: entryPath });
  });
  return needs;
}
