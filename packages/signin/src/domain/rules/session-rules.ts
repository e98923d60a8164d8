// The spec's session rules as pure functions, so they are unit-tested without a server.

export const SHORT_SESSION_TTL_SECONDS = 43_200;
export const LONG_SESSION_TTL_SECONDS = 604_800;
export const SESSION_REFRESH_INTERVAL_MS = 60_000;
export const MAX_PASSWORD_CHARACTERS = 1024;

/** Rule 6: the long lifetime only when asked for and the realm allows the choice. */
export function sessionTtlSeconds(longSession: boolean, allowSessionDurationChoice: boolean): number {
  return longSession && allowSessionDurationChoice ? LONG_SESSION_TTL_SECONDS : SHORT_SESSION_TTL_SECONDS;
}

export function isExpired(expiresAt: number, now: number): boolean {
  return expiresAt <= now;
}

/** Expiry is extended at most once per 60 seconds of activity. */
export function needsRefresh(lastSeenAt: number, now: number): boolean {
  return now - lastSeenAt >= SESSION_REFRESH_INTERVAL_MS;
}

export function computeExpiresAt(now: number, ttlSeconds: number): number {
  return now + ttlSeconds * 1000;
}

/** Longest `user_agent` stored with a session, in characters; longer values are cut. */
export const MAX_USER_AGENT_CHARACTERS = 512;

/** The stored user agent: at most MAX_USER_AGENT_CHARACTERS code points (never half a surrogate pair). */
export function capUserAgent(userAgent: string | null): string | null {
  if (userAgent === null || userAgent.length <= MAX_USER_AGENT_CHARACTERS) return userAgent;
  return Array.from(userAgent).slice(0, MAX_USER_AGENT_CHARACTERS).join('');
}

export type SessionTouchDecision = 'expired' | 'refresh' | 'keep';

/** What an authenticated request does to its session: delete it when expired, else maybe refresh it. */
export function decideSessionTouch(session: { expires_at: number; last_seen_at: number }, now: number): SessionTouchDecision {
  if (isExpired(session.expires_at, now)) return 'expired';
  return needsRefresh(session.last_seen_at, now) ? 'refresh' : 'keep';
}

/** A disabled realm takes no new sessions (a sign-in that raced with the disable must not leave one). */
export function acceptsNewSessions(settings: { status: string } | undefined): boolean {
  return settings?.status === 'active';
}
