import { createHash } from 'node:crypto';
import type { Clock } from '@conveyor/pipeline';

/** The longest a session check may be reused: the issue allows at most 2 s. */
export const SESSION_CACHE_MS = 2000;
/** Past this many entries the cache is emptied rather than grown: a flood of invented cookies must not hold memory. */
const MAX_ENTRIES = 10_000;

/** A digest of a cookie value, so the cache never holds a usable token. */
export function digestCookie(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Answers remembered for SESSION_CACHE_MS, keyed by whatever the caller builds (realm + cookie digest, host). */
export class ShortCache<T> {
  readonly #entries = new Map<string, { value: T; until: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number = SESSION_CACHE_MS,
  ) {}

  get(key: string): { value: T } | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= this.clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return { value: entry.value };
  }

  set(key: string, value: T): void {
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
    this.#entries.set(key, { value, until: this.clock.now() + this.ttlMs });
  }

  clear(): void {
    this.#entries.clear();
  }
}
