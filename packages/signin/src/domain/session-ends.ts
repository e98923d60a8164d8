/** Why a session ended: what a cache of session checks must forget at once. */
export interface SessionEnd {
  /** The realm's id (not its slug). */
  realmId: string;
  /** The ended session's id (its token's digest); absent when all of a user's sessions ended. */
  sessionId?: string;
  userId?: string;
  reason: 'logout' | 'expired' | 'invalid' | 'user-sessions-ended';
}

export type SessionEndListener = (end: SessionEnd) => void;

/**
 * Session ends seen in this process (logout, expiry deletion, a session dropped because its user or
 * membership is no longer valid, an administrator ending a user's sessions), for whoever keeps a
 * short-lived cache of session checks in the same process. Ends decided by another process (the admin
 * CLI on the same files) are not seen here; such a cache must stay short (at most 2 s).
 */
export class SessionEnds {
  readonly #listeners = new Set<SessionEndListener>();

  /** Returns the unsubscribe function. */
  subscribe(listener: SessionEndListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(end: SessionEnd): void {
    // A listener's failure is its own; the session has ended whatever it does.
    for (const listener of this.#listeners) {
      try {
        listener(end);
      } catch {
        // ignored on purpose
      }
    }
  }
}
