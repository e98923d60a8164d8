import { indexPath, joinPath, shortenKey } from './problems.js';
import type { ProblemList } from './problems.js';
import { VARIABLE_NAME } from './read-env.js';
import { isYamlMap, readScalarAsString, reportWrongType } from './read-values.js';

/** One matrix key and its values, already converted to strings. */
export interface MatrixAxis {
  key: string;
  values: string[];
}

export interface ReadMatrix {
  /** Every key declared with a valid name, even if its values are wrong: `${key}` checks use these. */
  keys: Set<string>;
  /** The axes in declared order; undefined when any part of the matrix is wrong. */
  axes: MatrixAxis[] | undefined;
}

/** Reads `matrix`. A value repeated within a key would repeat a variant name, so it is reported here. */
export function readMatrix(value: unknown, path: string, problems: ProblemList): ReadMatrix {
  const keys = new Set<string>();
  if (!isYamlMap(value)) {
    reportWrongType(value, 'a map of keys to lists of values', path, problems);
    return { keys, axes: undefined };
  }
  const axes: MatrixAxis[] = [];
  let valid = true;
  for (const [key, raw] of value) {
    const keyPath = joinPath(path, key);
    if (!VARIABLE_NAME.test(key)) {
      problems.add(keyPath, `matrix keys must match ${String(VARIABLE_NAME)}`);
      valid = false;
      continue;
    }
    keys.add(key);
    const values = readAxisValues(raw, keyPath, problems);
    if (values) axes.push({ key, values });
    else valid = false;
  }
  return { keys, axes: valid ? axes : undefined };
}

function readAxisValues(raw: unknown, path: string, problems: ProblemList): string[] | undefined {
  if (!Array.isArray(raw)) {
    reportWrongType(raw, 'a non-empty list of values', path, problems);
    return undefined;
  }
  if (raw.length === 0) {
    problems.add(path, 'must not be an empty list');
    return undefined;
  }
  const values: string[] = [];
  const firstIndex = new Map<string, number>();
  let valid = true;
  raw.forEach((entry: unknown, index) => {
    const entryPath = indexPath(path, index);
    const text = readScalarAsString(entry, entryPath, problems);
    if (text === undefined) {
      valid = false;
      return;
    }
    const earlier = firstIndex.get(text);
    if (earlier !== undefined) {
      problems.add(entryPath, `repeats the value "${shortenKey(text)}" of ${indexPath(path, earlier)} (as text), which would give two variants the same name`);
      valid = false;
      return;
    }
    firstIndex.set(text, index);
    values.push(text);
  });
  return valid ? values : undefined;
}
