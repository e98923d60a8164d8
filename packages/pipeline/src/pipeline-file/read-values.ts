import { indexPath } from './problems.js';
import type { ProblemList } from './problems.js';

/** A YAML map as parsed (see parse-yaml.ts): keys are strings, in the file's order. */
export type YamlMap = Map<string, unknown>;

export function isYamlMap(value: unknown): value is YamlMap {
  return value instanceof Map;
}

/** Names a value's YAML type for messages: `must be a string, got a list`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'null (an empty value)';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Map) return 'a map';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an unsupported value';
  }
}

export function reportWrongType(value: unknown, expected: string, path: string, problems: ProblemList): void {
  problems.add(path, `must be ${expected}, got ${describeValue(value)}`);
}

export interface StringRule {
  /** Refuse `""`. */
  nonEmpty?: boolean;
  pattern?: RegExp;
  /** How to say what the pattern requires, e.g. `must match ^[a-z0-9_]{1,32}$`. */
  patternMessage?: string;
}

export function readString(value: unknown, path: string, problems: ProblemList, rule: StringRule = {}): string | undefined {
  if (typeof value !== 'string') {
    reportWrongType(value, rule.nonEmpty ? 'a non-empty string' : 'a string', path, problems);
    return undefined;
  }
  if (rule.nonEmpty && value === '') {
    problems.add(path, 'must not be empty');
    return undefined;
  }
  if (rule.pattern && !rule.pattern.test(value)) {
    problems.add(path, rule.patternMessage ?? `must match ${String(rule.pattern)}`);
    return undefined;
  }
  return value;
}

export interface ListRule {
  /** A single string stands for a one-element list (`script: make`). */
  allowSingle?: boolean;
  /** Refuse `[]`. */
  nonEmpty?: boolean;
  entry?: StringRule;
}

/** Reads a list of strings, reporting each bad entry at its index. Returns only the good entries. */
export function readStringList(value: unknown, path: string, problems: ProblemList, rule: ListRule = {}): string[] {
  if (rule.allowSingle && typeof value === 'string') {
    // `command: ""` is more likely a mistake than a wish for one empty argument.
    const single = readString(value, path, problems, { ...rule.entry, nonEmpty: true });
    return single === undefined ? [] : [single];
  }
  if (!Array.isArray(value)) {
    reportWrongType(value, rule.allowSingle ? 'a list of strings or a single string' : 'a list of strings', path, problems);
    return [];
  }
  if (rule.nonEmpty && value.length === 0) {
    problems.add(path, 'must not be an empty list');
    return [];
  }
  const read: string[] = [];
  value.forEach((entry: unknown, index) => {
    const text = readString(entry, indexPath(path, index), problems, rule.entry);
    if (text !== undefined) read.push(text);
  });
  return read;
}

/** Env values and matrix values: any scalar, written as JavaScript's String() writes it. */
export function readScalarAsString(value: unknown, path: string, problems: ProblemList): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  reportWrongType(value, 'a string, number or boolean', path, problems);
  return undefined;
}

export function readBoolean(value: unknown, path: string, problems: ProblemList): boolean | undefined {
  if (typeof value === 'boolean') return value;
  reportWrongType(value, 'true or false', path, problems);
  return undefined;
}

export function readIntegerInRange(value: unknown, path: string, problems: ProblemList, min: number, max: number): number | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    reportWrongType(value, `an integer from ${min} to ${max}`, path, problems);
    return undefined;
  }
  if (value < min || value > max) {
    problems.add(path, `must be from ${min} to ${max}, got ${value}`);
    return undefined;
  }
  return value;
}

/** Keeps the first of each repeated string, in order. */
export function removeDuplicates(values: string[]): string[] {
  return [...new Set(values)];
}
