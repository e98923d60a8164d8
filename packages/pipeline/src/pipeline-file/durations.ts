import { MAX_EXPIRE_IN_SECONDS, MAX_TIMEOUT_SECONDS } from './limits.js';
import { shortenKey } from './problems.js';
import type { ProblemList } from './problems.js';
import { reportWrongType } from './read-values.js';

const DURATION = /^(\d+)(s|m|h|d)$/;
const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/** Reads `timeout`: integer seconds, or `90s` / `30m` / `2h`. Returns seconds. */
export function readTimeout(value: unknown, path: string, problems: ProblemList): number | undefined {
  const seconds = convertToSeconds(value);
  if (seconds === undefined) {
    if (typeof value === 'string') {
      problems.add(path, `must be a whole number of seconds or a duration such as 90s, 30m or 2h, got "${shortenKey(value)}"`);
    } else {
      reportWrongType(value, 'a whole number of seconds or a duration such as 90s, 30m or 2h', path, problems);
    }
    return undefined;
  }
  if (seconds <= 0) {
    problems.add(path, 'must be positive');
    return undefined;
  }
  if (seconds > MAX_TIMEOUT_SECONDS) {
    problems.add(path, `must be at most ${MAX_TIMEOUT_SECONDS} seconds (24h)`);
    return undefined;
  }
  return seconds;
}

/**
 * Reads `expire_in` (under `artifacts`): integer seconds, or `<n>s`, `<n>m`, `<n>h`, `<n>d`, positive and
 * at most MAX_EXPIRE_IN_SECONDS. Returns seconds.
 */
export function readExpireIn(value: unknown, path: string, problems: ProblemList): number | undefined {
  const seconds = convertToSeconds(value, true);
  const expected = 'a whole number of seconds or a duration such as 45m, 12h or 7d';
  if (seconds === undefined) {
    if (typeof value === 'string') problems.add(path, `must be ${expected}, got "${shortenKey(value)}"`);
    else reportWrongType(value, expected, path, problems);
    return undefined;
  }
  if (seconds <= 0) {
    problems.add(path, 'must be positive');
    return undefined;
  }
  if (seconds > MAX_EXPIRE_IN_SECONDS) {
    problems.add(path, `must be at most ${MAX_EXPIRE_IN_SECONDS / 86_400}d`);
    return undefined;
  }
  return seconds;
}

function convertToSeconds(value: unknown, allowDays = false): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = DURATION.exec(value);
  if (!match) return undefined;
  const unit = match[2] as keyof typeof UNIT_SECONDS;
  // `timeout` is at most a day, so it takes no days: `1d` there is a problem, not 24h.
  if (unit === 'd' && !allowDays) return undefined;
  // A long run of digits overflows to a huge number or Infinity; either is then refused as above the limit.
  return Number(match[1]) * UNIT_SECONDS[unit];
}
