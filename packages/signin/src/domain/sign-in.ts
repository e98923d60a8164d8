import { invalidCredentials, providerDisabled, providerRequired, unknownRealm } from '../errors.js';
import { guardPasswordAttempt, listAttemptKeys } from './attempt-guard.js';
import type { SigninDeps } from './deps.js';
import { normaliseEmail, normaliseUsername } from './rules/normalise.js';
import type { SelectedRealm } from './realms.js';
import { findHomeRealmProvider, resolveIdentifier } from './resolution.js';
import { capUserAgent, computeExpiresAt, sessionTtlSeconds } from './rules/session-rules.js';
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

/**
 * Password sign-in. Rule 1 (field types) and the realm are the caller's; then the attempt limiter
 * (429 `too_many_attempts`, decided before any lookup or hashing), then rules 2 to 7 in their order.
 */
export async function signInWithPassword(deps: SigninDeps, realm: SelectedRealm, input: PasswordSignInInput): Promise<SignedIn> {
  const keys = listAttemptKeys(deps, input.identifier, input.ip);
  return guardPasswordAttempt(deps, keys, () => checkPasswordAndStartSession(deps, realm, input));
}

async function checkPasswordAndStartSession(deps: SigninDeps, realm: SelectedRealm, input: PasswordSignInInput): Promise<SignedIn> {
  const identifier = input.identifier.trim();
  const isEmail = identifier.includes('@');
  await refuseEmailWithProvider(deps, identifier, isEmail);
  const account = await findEligibleAccount(deps, realm, identifier, isEmail);
  if (account === undefined) {
    await deps.passwords.verifyDummy(input.password);
    throw invalidCredentials();
  }
  if (!(await deps.passwords.verifyPassword(account.credential.secret_hash, input.password))) throw invalidCredentials();
  if (!isEmail) await refuseHomeRealmProvider(deps, account.user);
  return createSession(deps, realm, account.user, input);
}

/** Rule 2: an email that resolves to an identity provider must sign in there. */
async function refuseEmailWithProvider(deps: SigninDeps, identifier: string, isEmail: boolean): Promise<void> {
  if (isEmail && (await resolveIdentifier(deps.store, identifier)).next !== 'password') throw providerRequired();
}

/** Rule 3: an active user, with a password, with an active membership in this realm; else undefined. */
async function findEligibleAccount(
  deps: SigninDeps,
  realm: SelectedRealm,
  identifier: string,
  isEmail: boolean,
): Promise<{ user: User; credential: Credential } | undefined> {
  const system = deps.store.system;
  const user = isEmail ? await system.findUserByVerifiedEmail(normaliseEmail(identifier)) : await system.findUserByUsername(normaliseUsername(identifier));
  if (user === undefined || user.status !== 'active') return undefined;
  const credential = await system.findCredential(user.id, 'password');
  if (credential === undefined) return undefined;
  if ((await realm.store.findMembership(user.id))?.status !== 'active') return undefined;
  return { user, credential };
}

/** Rule 5: a username sign-in of an account whose home realm sends its email domain to a provider. */
async function refuseHomeRealmProvider(deps: SigninDeps, user: User): Promise<void> {
  const provider = await findHomeRealmProvider(deps.store, user.home_realm_id, await deps.store.system.listEmails(user.id));
  if (provider === undefined) return;
  throw provider.enabled ? providerRequired() : providerDisabled();
}

/** Rules 6 and 7: the lifetime, then the session (expired ones of the realm purged first). */
async function createSession(deps: SigninDeps, realm: SelectedRealm, user: User, input: PasswordSignInInput): Promise<SignedIn> {
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
    user_agent: capUserAgent(input.userAgent),
    ip: input.ip,
  };
  // The realm was disabled while the password was checked: as if it had been before (unknown realm).
  if (!(await realm.store.createSession(session, now))) throw unknownRealm();
  await deps.store.system.recordLogin(user.id, now);
  return { user: { ...user, last_login_at: now }, session, token };
}
