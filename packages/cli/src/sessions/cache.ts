import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { Clock, SessionResolver } from '@conveyor/pipeline';
import { sessionCookieOf } from './request-parts.js';

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

type Viewer = Awaited<ReturnType<SessionResolver['resolve']>>;

/**
 * `SessionResolver.resolve` over a check of (request, realm, cookie value): the realm the Host selects,
 * that realm's session cookie, and the check's answer reused for SESSION_CACHE_MS per (realm, cookie
 * digest). A failed check empties the cache, so an outage is not remembered.
 */
export function cacheSessionChecks(
  checks: ShortCache<Promise<Viewer>>,
  realmOf: (request: FastifyRequest) => Promise<string | null>,
  check: (request: FastifyRequest, realm: string, token: string) => Promise<Viewer>,
): SessionResolver['resolve'] {
  return async (request) => {
    const realm = await realmOf(request);
    if (realm === null) return null;
    const token = sessionCookieOf(request, realm);
    if (token === undefined) return null;
    const key = `${realm}\n${digestCookie(token)}`;
    const cached = checks.get(key);
    if (cached !== undefined) return cached.value;
    const pending = check(request, realm, token);
    checks.set(key, pending);
    pending.catch(() => checks.clear());
    return pending;
  };
}
