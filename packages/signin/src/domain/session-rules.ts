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
