import { resolve } from 'node:path';

/** Environment variables as process.env holds them; tests pass a plain object. */
export type Env = Readonly<Record<string, string | undefined>>;

/** A setting is missing or wrong. The message names the variable (or option) and says what it takes. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export interface IntegerRange {
  min: number;
  /** Inclusive; none means any safe integer. */
  max?: number;
}

const DURATION = /^(\d+)(s|m|h|d)?$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** A whole number within `range`; `label` names the setting in the message ("PIPELINE_PORT", "--grace (CONVEYOR_WORKER_GRACE)"). */
export function parseInteger(label: string, raw: string, range: IntegerRange): number {
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < range.min || value > max) {
    const bounds = range.max === undefined ? `of at least ${range.min}` : `from ${range.min} to ${range.max}`;
    throw new ConfigError(`${label} must be an integer ${bounds}, got '${raw}'`);
  }
  return value;
}

/** Whole seconds (`90`) or a duration `<n>s`, `<n>m`, `<n>h`, `<n>d`, within `range` seconds. */
export function parseDurationSeconds(label: string, raw: string, range: IntegerRange): number {
  const match = DURATION.exec(raw);
  if (match === null) throw new ConfigError(`${label} must be whole seconds or a duration such as 45m, 12h or 30d, got '${raw}'`);
  const seconds = Number(match[1]) * UNIT_SECONDS[(match[2] ?? 's') as keyof typeof UNIT_SECONDS];
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (seconds < range.min || seconds > max) {
    throw new ConfigError(`${label} must be between ${describeSeconds(range.min)} and ${describeSeconds(max)}, got '${raw}'`);
  }
  return seconds;
}

function describeSeconds(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds > 0) return `${seconds / 86_400}d`;
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

/** One of `values`, exactly as written. */
export function parseEnum<T extends string>(label: string, raw: string, values: readonly T[]): T {
  const found = values.find((value) => value === raw);
  if (found === undefined) throw new ConfigError(`${label} must be one of ${values.join(', ')}, got '${raw}'`);
  return found;
}

/** An absolute http(s) URL. */
export function parseHttpUrl(label: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${label} must be an absolute http or https URL, got '${raw}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`${label} must be an http or https URL, got '${raw}'`);
  return url;
}

/**
 * Reads named variables from `env`, each validated with a message naming it. An unset or empty variable
 * takes its default: a service manager that writes `NAME=` means "not set".
 */
export function readEnv(env: Env) {
  const raw = (name: string): string | undefined => {
    const value = env[name];
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    text: (name: string, fallback: string): string => raw(name) ?? fallback,
    integer: (name: string, fallback: number, range: IntegerRange): number => {
      const value = raw(name);
      return value === undefined ? fallback : parseInteger(name, value, range);
    },
    durationSeconds: (name: string, fallback: number, range: IntegerRange): number => {
      const value = raw(name);
      return value === undefined ? fallback : parseDurationSeconds(name, value, range);
    },
    oneOf: <T extends string>(name: string, fallback: T, values: readonly T[]): T => {
      const value = raw(name);
      return value === undefined ? fallback : parseEnum(name, value, values);
    },
    /** As written (once checked to be an absolute http(s) URL); null when unset. */
    httpUrl: (name: string): string | null => {
      const value = raw(name);
      if (value !== undefined) parseHttpUrl(name, value);
      return value ?? null;
    },
    /** Made absolute against the working directory, so the process finds it wherever it later changes to. */
    path: (name: string, fallback: string): string => resolve(raw(name) ?? fallback),
  };
}
