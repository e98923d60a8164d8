import { SigninError } from '../errors.js';
import type { SigninDeps } from './deps.js';
import { selectRealm, type SelectedRealm } from './realms.js';
import { readCookie, serializeClearedCookie, serializeSessionCookie, sessionCookieName } from './rules/cookies.js';
import { touchSession } from './sessions.js';
import { toRealmMetadata, type RealmMetadata, type User } from './types.js';

/** What a request brings to a session check: its Host, its Cookie header, `?realm=`, and whether it came over TLS. */
export interface SessionRequest {
  host: string | undefined;
  cookieHeader: string | undefined;
  realmSlug?: string;
  /** Whether a re-issued or cleared cookie gets `Secure`. */
  secure: boolean;
}

export type SessionAnswer =
  | {
      authenticated: true;
      realm: SelectedRealm;
      user: User;
      roles: string[];
      expiresAt: number;
      /** The re-issued cookie when the session was refreshed, to send with the response; else null. */
      setCookie: string | null;
    }
  /** `setCookie`: the clearing cookie when the session was dropped for an invalid user or membership. */
  | { authenticated: false; realm: SelectedRealm; setCookie: string | null };

/**
 * The session check of `GET /api/v1/session`, for that route and for anyone in the same process who needs
 * it (the pipeline service's session resolver under `conveyor serve`): the realm the Host (else the slug)
 * selects, that realm's cookie only, the spec's transitions (expiry and invalid user or membership delete
 * the session; a refresh at most once a minute re-issues the cookie). An unknown realm is `unknown_realm`.
 */
export async function checkSessionRequest(deps: SigninDeps, request: SessionRequest): Promise<SessionAnswer> {
  const realm = await selectRealm(deps.store, request.host, request.realmSlug);
  const name = sessionCookieName(realm.realm.slug);
  const token = readCookie(request.cookieHeader, name);
  const check = await touchSession(deps, realm, token);
  if (!check.authenticated) {
    return { authenticated: false, realm, setCookie: check.clearCookie ? serializeClearedCookie(name, request.secure) : null };
  }
  const setCookie = check.refreshed ? serializeSessionCookie(name, token ?? '', { maxAgeSeconds: check.session.ttl, secure: request.secure }) : null;
  return { authenticated: true, realm, user: check.user, roles: check.roles, expiresAt: check.session.expires_at, setCookie };
}

/** The public metadata of the realm a Host (else a slug) selects: what a sign-in page shows before sign-in. */
export async function describeRealm(deps: SigninDeps, host: string | undefined, realmSlug: string | undefined): Promise<RealmMetadata> {
  return toRealmMetadata((await selectRealm(deps.store, host, realmSlug)).settings);
}

/**
 * A user's current roles in an active realm, when the user is active and an active member there; null
 * otherwise (the user may not act in that realm). For rights re-checked on each use, such as API tokens.
 */
export async function findActingRoles(deps: SigninDeps, realmSlug: string, userId: string): Promise<{ username: string; roles: string[] } | null> {
  let realm: SelectedRealm;
  try {
    realm = await selectRealm(deps.store, undefined, realmSlug);
  } catch (error) {
    if (error instanceof SigninError && error.code === 'unknown_realm') return null;
    throw error;
  }
  const user = await deps.store.system.findUserById(userId);
  if (user === undefined || user.status !== 'active') return null;
  const membership = await realm.store.findMembership(user.id);
  if (membership?.status !== 'active') return null;
  return { username: user.username, roles: await realm.store.listRoleSlugs(user.id) };
}
