// The sign-in attempt limiter's rules as pure functions. Stores call them inside their atomic
// operations (reserve, settle), so every store applies the same rules and they are tested once.

/** Failures are forgotten after this long without a failure and without a running delay. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** The first delay once a key reaches its failure limit; each further failure doubles it. */
export const FIRST_DELAY_MS = 30_000;
export const MAX_DELAY_MS = 15 * 60_000;
/**
 * A reservation that was never settled (a process that died mid-check) stops counting after this
 * long, so a crash cannot lock a key for good. A sign-in takes well under a second.
 */
export const PENDING_TTL_MS = 60_000;

/** One limiter key's state: `identifier:<normalised>` or `ip:<address>`. */
export interface AttemptCounter {
  key: string;
  /** Confirmed failures since the key was last forgotten or reset. */
  failures: number;
  /** Attempts reserved (counted as possible failures) and not settled yet. */
  pending: number;
  last_failure_at: number | null;
  /** Attempts are refused until then (exclusive). */
  blocked_until: number | null;
  /** When `pending` was last raised; stale reservations are dropped after PENDING_TTL_MS. */
  reserved_at: number | null;
  /** When the whole record may be deleted: the state it holds no longer matters then. */
  expires_at: number;
}

/** A key with its failure limit (AUTH_MAX_FAILURES per identifier, AUTH_MAX_IP_FAILURES per IP). */
export interface AttemptKey {
  key: string;
  maxFailures: number;
}

export type AttemptDecision = { allowed: true; next: AttemptCounter } | { allowed: false; retryAfterMs: number };

/** What ends an attempt: a 401 (`failure`), a success for this key (`reset`) or anything else (`release`). */
export type AttemptOutcome = 'failure' | 'reset' | 'release';

export function emptyCounter(key: string, now: number): AttemptCounter {
  return { key, failures: 0, pending: 0, last_failure_at: null, blocked_until: null, reserved_at: null, expires_at: now };
}

/**
 * The delay after the `failures`-th failure: none below the limit, then FIRST_DELAY_MS doubling with
 * each further failure, capped at MAX_DELAY_MS.
 */
export function delayAfterFailures(failures: number, maxFailures: number): number {
  if (failures < maxFailures) return 0;
  const doublings = Math.min(failures - maxFailures, 30);
  return Math.min(FIRST_DELAY_MS * 2 ** doublings, MAX_DELAY_MS);
}

/** When the record can be forgotten: a window after the later of the last failure and the delay's end. */
function computeExpiresAt(counter: AttemptCounter, now: number): number {
  const lastActivity = Math.max(counter.last_failure_at ?? now, counter.blocked_until ?? now, counter.reserved_at ?? now);
  return lastActivity + FAILURE_WINDOW_MS;
}

/** The counter as it stands at `now`: forgotten when expired, stale reservations dropped. */
export function currentCounter(stored: AttemptCounter | undefined, key: string, now: number): AttemptCounter {
  if (stored === undefined) return emptyCounter(key, now);
  const stalePending = stored.reserved_at !== null && now - stored.reserved_at >= PENDING_TTL_MS;
  const pending = stalePending ? 0 : stored.pending;
  if (pending === 0 && stored.expires_at <= now) return emptyCounter(key, now);
  return { ...stored, pending };
}

/**
 * May one more attempt start for this key? Refused while a delay runs; refused when the failures
 * plus the attempts in flight already reach the limit (so parallel guesses cannot overshoot it),
 * except that once a delay has ended one attempt at a time is let through. An allowed attempt is
 * counted as pending until settled.
 */
export function decideAttempt(stored: AttemptCounter | undefined, limit: AttemptKey, now: number): AttemptDecision {
  const counter = currentCounter(stored, limit.key, now);
  if (counter.blocked_until !== null && counter.blocked_until > now) return { allowed: false, retryAfterMs: counter.blocked_until - now };
  const inFlightFull = counter.pending > 0 && counter.failures + counter.pending >= limit.maxFailures;
  if (inFlightFull) return { allowed: false, retryAfterMs: Math.max(delayAfterFailures(counter.failures + counter.pending, limit.maxFailures), 1000) };
  const next = { ...counter, pending: counter.pending + 1, reserved_at: now };
  return { allowed: true, next: { ...next, expires_at: computeExpiresAt(next, now) } };
}

/** Ends a reserved attempt: a failure is counted (and may start a delay); a reset forgets the failures. */
export function settleAttempt(stored: AttemptCounter | undefined, limit: AttemptKey, outcome: AttemptOutcome, now: number): AttemptCounter {
  const counter = currentCounter(stored, limit.key, now);
  const pending = Math.max(counter.pending - 1, 0);
  let next: AttemptCounter;
  if (outcome === 'failure') {
    const failures = counter.failures + 1;
    const delay = delayAfterFailures(failures, limit.maxFailures);
    next = { ...counter, pending, failures, last_failure_at: now, blocked_until: delay > 0 ? now + delay : counter.blocked_until };
  } else if (outcome === 'reset') {
    next = { ...counter, pending, failures: 0, last_failure_at: null, blocked_until: null };
  } else {
    next = { ...counter, pending };
  }
  return { ...next, expires_at: computeExpiresAt(next, now) };
}

/** True when the record holds nothing worth keeping (the store deletes it instead of writing it). */
export function isEmptyCounter(counter: AttemptCounter): boolean {
  return counter.failures === 0 && counter.pending === 0 && counter.blocked_until === null;
}

/** Retry-After in whole seconds, never 0. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
