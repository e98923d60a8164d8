import type Database from 'better-sqlite3';
import { decideAttempt, isEmptyCounter, settleAttempt, type AttemptCounter, type AttemptKey } from '../../domain/rules/attempt-rules.js';
import type { AttemptReservation, AttemptSettlement } from '../types.js';

/**
 * The `attempt_counters` table. Reads and writes run in IMMEDIATE transactions: the write lock is
 * taken before the counter is read, so two connections (two server processes on one file) cannot
 * both read the same count and both let an attempt through.
 */
export class AttemptCounters {
  private readonly select: Database.Statement<[string], AttemptCounter>;
  private readonly upsert: Database.Statement<[AttemptCounter]>;
  private readonly remove: Database.Statement<[string]>;
  private readonly purge: Database.Statement<[number]>;
  private readonly reserveAll: (keys: readonly AttemptKey[], now: number) => AttemptReservation;
  private readonly settleAll: (settlements: readonly AttemptSettlement[], now: number) => void;

  constructor(db: Database.Database) {
    this.select = db.prepare('SELECT key, failures, pending, last_failure_at, blocked_until, reserved_at, expires_at FROM attempt_counters WHERE key = ?');
    this.upsert = db.prepare(
      `INSERT INTO attempt_counters (key, failures, pending, last_failure_at, blocked_until, reserved_at, expires_at)
       VALUES (@key, @failures, @pending, @last_failure_at, @blocked_until, @reserved_at, @expires_at)
       ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, pending = excluded.pending, last_failure_at = excluded.last_failure_at,
         blocked_until = excluded.blocked_until, reserved_at = excluded.reserved_at, expires_at = excluded.expires_at`,
    );
    this.remove = db.prepare('DELETE FROM attempt_counters WHERE key = ?');
    // expires_at is computed by the domain rules (a reservation is stale long before it), so the
    // store only compares it with now.
    this.purge = db.prepare('DELETE FROM attempt_counters WHERE expires_at <= ?');
    this.reserveAll = db.transaction((keys: readonly AttemptKey[], now: number) => this.reserveInTransaction(keys, now)).immediate;
    this.settleAll = db.transaction((settlements: readonly AttemptSettlement[], now: number) => this.settleInTransaction(settlements, now)).immediate;
  }

  reserve(keys: readonly AttemptKey[], now: number): AttemptReservation {
    return this.reserveAll(keys, now);
  }

  settle(settlements: readonly AttemptSettlement[], now: number): void {
    this.settleAll(settlements, now);
  }

  private reserveInTransaction(keys: readonly AttemptKey[], now: number): AttemptReservation {
    const next: AttemptCounter[] = [];
    let retryAfterMs = 0;
    for (const key of keys) {
      const decision = decideAttempt(this.select.get(key.key), key, now);
      if (decision.allowed) next.push(decision.next);
      else retryAfterMs = Math.max(retryAfterMs, decision.retryAfterMs);
    }
    if (retryAfterMs > 0) return { allowed: false, retryAfterMs };
    for (const counter of next) this.upsert.run(counter);
    return { allowed: true };
  }

  private settleInTransaction(settlements: readonly AttemptSettlement[], now: number): void {
    for (const settlement of settlements) {
      const counter = settleAttempt(this.select.get(settlement.key), settlement, settlement.outcome, now);
      if (isEmptyCounter(counter)) this.remove.run(counter.key);
      else this.upsert.run(counter);
    }
    // Counters of identifiers that were tried once and never again would otherwise pile up.
    this.purge.run(now);
  }
}
