import { createHash } from 'node:crypto';
import { SigninError, tooManyAttempts } from '../errors.js';
import { retryAfterSeconds, type AttemptKey, type AttemptOutcome } from './rules/attempt-rules.js';
import type { SigninDeps } from './deps.js';
import { normaliseEmail, normaliseUsername } from './rules/normalise.js';

/**
 * The limiter keys of a password attempt: the normalised identifier (the same key whether or not an
 * account has it, so a 429 tells nothing about accounts) and the client IP when known.
 */
export function listAttemptKeys(deps: Pick<SigninDeps, 'limits'>, identifier: string, ip: string | null): AttemptKey[] {
  const trimmed = identifier.trim();
  const normalised = trimmed.includes('@') ? normaliseEmail(trimmed) : normaliseUsername(trimmed);
  const keys: AttemptKey[] = [{ key: `identifier:${shortenKeyPart(normalised)}`, maxFailures: deps.limits.maxFailures }];
  if (ip !== null) keys.push({ key: `ip:${shortenKeyPart(ip)}`, maxFailures: deps.limits.maxIpFailures });
  return keys;
}

const MAX_KEY_PART = 256;

/** Nothing real is this long; a digest keeps junk of up to the body limit out of the counter table. */
function shortenKeyPart(value: string): string {
  return value.length <= MAX_KEY_PART ? value : `sha256:${createHash('sha256').update(value).digest('hex')}`;
}

type Result = { ok: true } | { ok: false; error: unknown };

/** A 401 is a failure; a success forgets the identifier's failures (not the IP's); anything else is released. */
function outcomeFor(key: AttemptKey, result: Result): AttemptOutcome {
  if (result.ok) return key.key.startsWith('identifier:') ? 'reset' : 'release';
  return result.error instanceof SigninError && result.error.code === 'invalid_credentials' ? 'failure' : 'release';
}

/**
 * Runs one password attempt under the limiter: the attempt is reserved (counted as a possible
 * failure) atomically before `attempt` does any lookup or hashing, so a refused one costs no hashing
 * and parallel guesses cannot pass the limit; then it is settled by its outcome.
 */
export async function guardPasswordAttempt<T>(deps: SigninDeps, keys: readonly AttemptKey[], attempt: () => Promise<T>): Promise<T> {
  const reservation = await deps.store.system.reserveAttempts(keys, deps.clock.now());
  if (!reservation.allowed) throw tooManyAttempts(retryAfterSeconds(reservation.retryAfterMs));
  let result: Result = { ok: false, error: undefined };
  try {
    const value = await attempt();
    result = { ok: true };
    return value;
  } catch (error) {
    result = { ok: false, error };
    throw error;
  } finally {
    const settlements = keys.map((key) => ({ ...key, outcome: outcomeFor(key, result) }));
    await deps.store.system.settleAttempts(settlements, deps.clock.now());
  }
}
