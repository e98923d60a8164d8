import { invalidCredentials, providerDisabled, providerRequired } from '../errors.js';
import type { SigninDeps } from './deps.js';
import { normaliseEmail, normaliseUsername } from './normalise.js';
import type { SelectedRealm } from './realms.js';
import { findHomeRealmProvider, resolveIdentifier } from './resolution.js';
import { computeExpiresAt, sessionTtlSeconds } from './session-rules.js';
import { createSessionToken, deriveSessionId } from './tokens.js';
import type { Credential, Session, User } from './types.js';

export interface PasswordSignInInput {
  /** Already checked by the caller to be a string (rule 1). */
  identifier: string;
  /** Already checked to be a string of at most 1024 characters (rule 1). */
  password: string;
  longSession: boolean;
  userAgent: string | null;
  ip: string | null;
}

export interface SignedIn {
  user: User;
  session: Session;
  /** The cookie value; never stored. */
  token: string;
}

/** Password sign-in, rules 2 to 7 of the spec in their order (rule 1 is the HTTP layer's parsing). */
export async function signInWithPassword(deps: SigninDeps, realm: SelectedRealm, input: PasswordSignInInput): Promise<SignedIn> {
  const identifier = input.identifier.trim();
  const isEmail = identifier.includes('@');
  refuseEmailWithProvider(deps, identifier, isEmail);
  const account = findEligibleAccount(deps, realm, identifier, isEmail);
  if (account === undefined) {
    await deps.passwords.verifyDummy(input.password);
    throw invalidCredentials();
  }
  if (!(await deps.passwords.verifyPassword(account.credential.secret_hash, input.password))) throw invalidCredentials();
  if (!isEmail) refuseHomeRealmProvider(deps, account.user);
  return createSession(deps, realm, account.user, input);
}

/** Rule 2: an email that resolves to an identity provider must sign in there. */
function refuseEmailWithProvider(deps: SigninDeps, identifier: string, isEmail: boolean): void {
  if (isEmail && resolveIdentifier(deps.store, identifier).next !== 'password') throw providerRequired();
}

/** Rule 3: an active user, with a password, with an active membership in this realm; else undefined. */
function findEligibleAccount(
  deps: SigninDeps,
  realm: SelectedRealm,
  identifier: string,
  isEmail: boolean,
): { user: User; credential: Credential } | undefined {
  const system = deps.store.system;
  const user = isEmail ? system.findUserByVerifiedEmail(normaliseEmail(identifier)) : system.findUserByUsername(normaliseUsername(identifier));
  if (user === undefined || user.status !== 'active') return undefined;
  const credential = system.findCredential(user.id, 'password');
  if (credential === undefined) return undefined;
  if (realm.store.findMembership(user.id)?.status !== 'active') return undefined;
  return { user, credential };
}

/** Rule 5: a username sign-in of an account whose home realm sends its email domain to a provider. */
function refuseHomeRealmProvider(deps: SigninDeps, user: User): void {
  const provider = findHomeRealmProvider(deps.store, user.home_realm_id, deps.store.system.listEmails(user.id));
  if (provider === undefined) return;
  throw provider.enabled ? providerRequired() : providerDisabled();
}

/** Rules 6 and 7: the lifetime, then the session (expired ones of the realm purged first). */
function createSession(deps: SigninDeps, realm: SelectedRealm, user: User, input: PasswordSignInInput): SignedIn {
  const now = deps.clock.now();
  const ttl = sessionTtlSeconds(input.longSession, realm.settings.allow_session_duration_choice);
  const token = createSessionToken();
  const session: Session = {
    id: deriveSessionId(token),
    user_id: user.id,
    ttl,
    created_at: now,
    expires_at: computeExpiresAt(now, ttl),
    last_seen_at: now,
    user_agent: input.userAgent,
    ip: input.ip,
  };
  realm.store.createSession(session, now);
  deps.store.system.recordLogin(user.id, now);
  return { user: { ...user, last_login_at: now }, session, token };
}
