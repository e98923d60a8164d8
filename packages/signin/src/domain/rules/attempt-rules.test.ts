import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listAttemptKeys } from '../attempt-guard.js';
import {
  currentCounter,
  decideAttempt,
  delayAfterFailures,
  FAILURE_WINDOW_MS,
  isEmptyCounter,
  PENDING_TTL_MS,
  retryAfterSeconds,
  settleAttempt,
  type AttemptCounter,
  type AttemptKey,
} from './attempt-rules.js';

const limit: AttemptKey = { key: 'identifier:ann', maxFailures: 3 };

/** Reserves then settles one attempt, as the store does in its two transactions. */
function attempt(counter: AttemptCounter | undefined, outcome: 'failure' | 'reset' | 'release', now: number): AttemptCounter {
  const decision = decideAttempt(counter, limit, now);
  assert.ok(decision.allowed, 'expected the attempt to be allowed');
  return settleAttempt(decision.next, limit, outcome, now);
}

describe('attempt limiter rules', () => {
  it('delays nothing below the limit, then 30 s doubling per failure up to 15 minutes', () => {
    assert.deepEqual(
      [2, 3, 4, 5, 6, 7, 8, 9, 100].map((failures) => delayAfterFailures(failures, 3)),
      [0, 30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000],
    );
  });

  it('refuses once the failures reach the limit, for the length of the delay', () => {
    let counter: AttemptCounter | undefined;
    for (let i = 0; i < 3; i += 1) counter = attempt(counter, 'failure', 1000);
    assert.equal(counter?.blocked_until, 31_000);
    assert.deepEqual(decideAttempt(counter, limit, 1000), { allowed: false, retryAfterMs: 30_000 });
    assert.deepEqual(decideAttempt(counter, limit, 30_999), { allowed: false, retryAfterMs: 1 });
    assert.equal(decideAttempt(counter, limit, 31_000).allowed, true);
  });

  it('counts attempts in flight: with the budget reserved, the next one is refused until they settle', () => {
    let counter: AttemptCounter | undefined;
    for (let i = 0; i < 3; i += 1) {
      const decision = decideAttempt(counter, limit, 0);
      assert.ok(decision.allowed);
      counter = decision.next;
    }
    assert.equal(counter?.pending, 3);
    const refused = decideAttempt(counter, limit, 0);
    assert.equal(refused.allowed, false);
    // A success releases the key for everyone: the identifier is reset.
    const reset = settleAttempt(counter, limit, 'reset', 0);
    assert.equal(reset.failures, 0);
    assert.equal(reset.pending, 2);
  });

  it('after a delay, lets one attempt through at a time', () => {
    let counter: AttemptCounter | undefined;
    for (let i = 0; i < 3; i += 1) counter = attempt(counter, 'failure', 0);
    const first = decideAttempt(counter, limit, 30_000);
    assert.ok(first.allowed);
    assert.equal(decideAttempt(first.next, limit, 30_000).allowed, false);
    const failed = settleAttempt(first.next, limit, 'failure', 30_000);
    assert.equal(failed.blocked_until, 90_000);
  });

  it('release gives the reservation back without counting a failure', () => {
    const decision = decideAttempt(undefined, limit, 0);
    assert.ok(decision.allowed);
    const released = settleAttempt(decision.next, limit, 'release', 0);
    assert.equal(released.failures, 0);
    assert.equal(released.pending, 0);
    assert.equal(isEmptyCounter(released), true);
  });

  it('forgets failures a window after the last failure or the end of the delay, whichever is later', () => {
    let counter = attempt(undefined, 'failure', 0);
    counter = attempt(counter, 'failure', 1000);
    assert.equal(currentCounter(counter, limit.key, 1000 + FAILURE_WINDOW_MS - 1).failures, 2);
    assert.equal(currentCounter(counter, limit.key, 1000 + FAILURE_WINDOW_MS).failures, 0);
    counter = attempt(counter, 'failure', 2000);
    assert.equal(counter.blocked_until, 32_000);
    assert.equal(counter.expires_at, 32_000 + FAILURE_WINDOW_MS);
  });

  it('drops reservations that were never settled (a crashed process) after a minute', () => {
    let counter: AttemptCounter | undefined;
    for (let i = 0; i < 3; i += 1) {
      const decision = decideAttempt(counter, limit, 0);
      assert.ok(decision.allowed);
      counter = decision.next;
    }
    assert.equal(decideAttempt(counter, limit, PENDING_TTL_MS - 1).allowed, false);
    assert.equal(decideAttempt(counter, limit, PENDING_TTL_MS).allowed, true);
  });

  it('rounds Retry-After up to whole seconds, at least 1', () => {
    assert.deepEqual([1, 999, 1000, 1001, 30_000].map(retryAfterSeconds), [1, 1, 1, 2, 30]);
  });
});

describe('attempt keys', () => {
  const deps = { limits: { maxFailures: 10, maxIpFailures: 100 } };

  it('normalises the identifier (trim, lower-case) and adds the IP when known', () => {
    assert.deepEqual(listAttemptKeys(deps, '  Ann@Example.COM ', '203.0.113.1'), [
      { key: 'identifier:ann@example.com', maxFailures: 10 },
      { key: 'ip:203.0.113.1', maxFailures: 100 },
    ]);
    assert.deepEqual(listAttemptKeys(deps, 'ANN', null), [{ key: 'identifier:ann', maxFailures: 10 }]);
  });

  it('stores a digest instead of an identifier or address longer than 256 characters', () => {
    const [identifier, ip] = listAttemptKeys(deps, 'x'.repeat(60_000), 'y'.repeat(300));
    assert.match(identifier?.key ?? '', /^identifier:sha256:[0-9a-f]{64}$/);
    assert.match(ip?.key ?? '', /^ip:sha256:[0-9a-f]{64}$/);
    assert.equal(listAttemptKeys(deps, 'X'.repeat(60_000), null)[0]?.key, identifier?.key);
  });
});
