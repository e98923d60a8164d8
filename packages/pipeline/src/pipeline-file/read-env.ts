import { joinPath } from './problems.js';
import type { ProblemList } from './problems.js';
import { isYamlMap, readScalarAsString, reportWrongType } from './read-values.js';
import { putEntry } from './records.js';

/** Environment variable names and matrix keys (a matrix value is also exported under its key). */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Reads an `env` map; a bad name or value is reported at `<path>.<NAME>` and left out. */
export function readEnv(value: unknown, path: string, problems: ProblemList): Record<string, string> {
  const env: Record<string, string> = {};
  if (!isYamlMap(value)) {
    reportWrongType(value, 'a map of variable names to values', path, problems);
    return env;
  }
  for (const [name, raw] of value) {
    const entryPath = joinPath(path, name);
    if (!VARIABLE_NAME.test(name)) {
      problems.add(entryPath, `variable names must match ${String(VARIABLE_NAME)}`);
      continue;
    }
    const text = readScalarAsString(raw, entryPath, problems);
    if (text !== undefined) putEntry(env, name, text);
  }
  return env;
}
