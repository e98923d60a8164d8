import type { SigninDeps } from './deps.js';
import type { SelectedRealm } from './realms.js';
import { deriveSessionId } from './tokens.js';
import type { Session, User } from './types.js';

export type SessionCheck =
  | { authenticated: true; session: Session; user: User; roles: string[]; refreshed: boolean }
  /** `clearCookie`: the session row was deleted because its user or membership is no longer valid. */
  | { authenticated: false; clearCookie: boolean };

/**
 * Applies the session transitions of the spec to the session named by a cookie token: expiry (the
 * store's atomic touch deletes an expired one), user and membership checks (each deleting the
 * session), and the at-most-once-a-minute refresh.
 */
export async function touchSession(deps: SigninDeps, realm: SelectedRealm, token: string | undefined): Promise<SessionCheck> {
  if (token === undefined || token === '') return { authenticated: false, clearCookie: false };
  const id = deriveSessionId(token);
  const touched = await realm.store.touchSession(id, deps.clock.now());
  if (touched.state === 'expired') deps.sessionEnds.publish({ realmId: realm.realm.id, sessionId: id, reason: 'expired' });
  if (touched.state !== 'live') return { authenticated: false, clearCookie: false };
  const user = await deps.store.system.findUserById(touched.session.user_id);
  const membership = user === undefined ? undefined : await realm.store.findMembership(user.id);
  if (user === undefined || user.status !== 'active' || membership?.status !== 'active') {
    await realm.store.deleteSession(id);
    deps.sessionEnds.publish({ realmId: realm.realm.id, sessionId: id, userId: touched.session.user_id, reason: 'invalid' });
    return { authenticated: false, clearCookie: true };
  }
  return { authenticated: true, session: touched.session, user, roles: await realm.store.listRoleSlugs(user.id), refreshed: touched.refreshed };
}

/** Logout: deletes the session named by the token, if there is one. */
export async function endSession(deps: Pick<SigninDeps, 'sessionEnds'>, realm: SelectedRealm, token: string | undefined): Promise<void> {
  if (token === undefined || token === '') return;
  const id = deriveSessionId(token);
  await realm.store.deleteSession(id);
  deps.sessionEnds.publish({ realmId: realm.realm.id, sessionId: id, reason: 'logout' });
}

/**
 * Ends every session of a user in every realm (password change, user disabled). Realms are separate
 * stores, so this is one deletion per realm, not one transaction.
 */
export async function endUserSessions(deps: SigninDeps, userId: string): Promise<number> {
  let ended = 0;
  for (const realm of await deps.store.system.listRealms()) {
    const store = await deps.store.realm(realm.id);
    if (store === undefined) continue;
    ended += await store.deleteUserSessions(userId);
    deps.sessionEnds.publish({ realmId: realm.id, userId, reason: 'user-sessions-ended' });
  }
  return ended;
}
