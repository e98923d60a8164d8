import type { SigninDeps } from './deps.js';
import type { SelectedRealm } from './realms.js';
import { computeExpiresAt, isExpired, needsRefresh } from './session-rules.js';
import { deriveSessionId } from './tokens.js';
import type { Session, User } from './types.js';

export type SessionCheck =
  | { authenticated: true; session: Session; user: User; roles: string[]; refreshed: boolean }
  /** `clearCookie`: the session row was deleted because its user or membership is no longer valid. */
  | { authenticated: false; clearCookie: boolean };

/**
 * Applies the session transitions of the spec to the session named by a cookie token: expiry,
 * user and membership checks (each deleting the session), then the at-most-once-a-minute refresh.
 */
export function touchSession(deps: SigninDeps, realm: SelectedRealm, token: string | undefined): SessionCheck {
  if (token === undefined || token === '') return { authenticated: false, clearCookie: false };
  const id = deriveSessionId(token);
  const session = realm.store.findSession(id);
  if (session === undefined) return { authenticated: false, clearCookie: false };
  const now = deps.clock.now();
  if (isExpired(session.expires_at, now)) {
    realm.store.deleteSession(id);
    return { authenticated: false, clearCookie: false };
  }
  const user = deps.store.system.findUserById(session.user_id);
  if (user === undefined || user.status !== 'active' || realm.store.findMembership(user.id)?.status !== 'active') {
    realm.store.deleteSession(id);
    return { authenticated: false, clearCookie: true };
  }
  const refreshed = needsRefresh(session.last_seen_at, now);
  const current = refreshed ? { ...session, last_seen_at: now, expires_at: computeExpiresAt(now, session.ttl) } : session;
  if (refreshed) realm.store.extendSession(id, current.last_seen_at, current.expires_at);
  return { authenticated: true, session: current, user, roles: realm.store.listRoleSlugs(user.id), refreshed };
}

/** Logout: deletes the session named by the token, if there is one. */
export function endSession(realm: SelectedRealm, token: string | undefined): void {
  if (token !== undefined && token !== '') realm.store.deleteSession(deriveSessionId(token));
}
