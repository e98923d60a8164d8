// How times, sizes and commits read on every page.

const UNITS: [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1000, 's'],
];

/** 1h 2m, 3m 4s, 5s: the two largest units. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.max(0, Math.round(milliseconds))}ms`;
  const parts: string[] = [];
  let rest = milliseconds;
  for (const [size, unit] of UNITS) {
    if (rest >= size || parts.length > 0) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** An instant as the APIs give it: milliseconds since the epoch (or an ISO string). */
export type Instant = number | string | null | undefined;

function toMillis(instant: number | string): number {
  return typeof instant === 'number' ? instant : Date.parse(instant);
}

/** The time between two instants, or from `start` until now while it runs. */
export function elapsed(start: Instant, end: Instant, now = Date.now()): string {
  if (start == null) return '';
  const to = end == null ? now : toMillis(end);
  return formatDuration(to - toMillis(start));
}

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "3 minutes ago", "yesterday". */
export function formatAge(instant: Instant, now = Date.now()): string {
  if (instant == null) return '';
  const seconds = Math.round((toMillis(instant) - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return RELATIVE.format(seconds, 'second');
  if (abs < 3600) return RELATIVE.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return RELATIVE.format(Math.round(seconds / 3600), 'hour');
  return RELATIVE.format(Math.round(seconds / 86_400), 'day');
}

/** The full local time, for a title attribute beside a relative age. */
export function formatTime(instant: Instant): string {
  return instant == null ? '' : new Date(toMillis(instant)).toLocaleString();
}

export function shortSha(sha: string | null | undefined): string {
  return sha == null ? '' : sha.slice(0, 8);
}

const SIZE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(value < 10 ? 1 : 0)} ${SIZE_UNITS[unit]}`;
}

/** `refs/heads/main` → `main`, `refs/tags/v1` → `v1`. */
export function shortRef(ref: string | null | undefined): string {
  if (ref == null) return '';
  return ref.replace(/^refs\/(heads|tags)\//, '');
}
