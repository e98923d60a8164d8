import { duplicate, invalidRequest, notFound } from '../errors.js';
import type { SigninStore } from '../store/store.js';
import { newId, type SigninDeps } from './deps.js';
import { decideHomeRealmForVerifiedEmail } from './home-realm.js';
import { countCharacters, normaliseEmail, normaliseUsername, parseDisplayName, parseEmail, parseUsername } from './normalise.js';
import { MAX_PASSWORD_CHARACTERS } from './session-rules.js';
import type { Credential, User, UserEmail, UserStatus } from './types.js';

/** USER on the command line: an id or a username. */
export function requireUser(store: SigninStore, ref: string): User {
  const user = store.system.findUserById(ref.trim()) ?? store.system.findUserByUsername(normaliseUsername(ref));
  if (user === undefined) throw notFound(`user '${ref}'`);
  return user;
}

function checkNewPassword(password: string): void {
  if (password === '') throw invalidRequest('the password must not be empty');
  if (countCharacters(password) > MAX_PASSWORD_CHARACTERS) throw invalidRequest(`the password must be at most ${MAX_PASSWORD_CHARACTERS} characters`);
}

async function passwordCredential(deps: SigninDeps, userId: string, password: string, now: number): Promise<Credential> {
  checkNewPassword(password);
  return { id: newId(), user_id: userId, type: 'password', secret_hash: await deps.passwords.hashPassword(password), created_at: now, updated_at: now };
}

export interface EmailInput {
  email: string;
  verified: boolean;
  primary: boolean;
}

export interface CreateUserInput {
  username: string;
  displayName?: string;
  password?: string;
  email?: EmailInput;
  status?: UserStatus;
}

/** Creates a user, with an optional first email (which may give the home realm) and password. */
export async function createUser(deps: SigninDeps, input: CreateUserInput): Promise<User> {
  const { username, normalised } = parseUsername(input.username);
  const displayName = parseDisplayName(input.displayName ?? username);
  const email = input.email === undefined ? undefined : parseEmail(input.email.email);
  if (deps.store.system.findUserByUsername(normalised) !== undefined) throw duplicate(`username '${username}'`);
  if (email !== undefined && deps.store.system.findEmail(email.normalised) !== undefined) throw duplicate(`email '${email.email}'`);
  const now = deps.clock.now();
  const id = newId();
  const homeRealmId = email !== undefined && input.email?.verified === true ? decideHomeRealmForVerifiedEmail(deps.store, { home_realm_id: null }, email.normalised) : undefined;
  const user: User = {
    id,
    username,
    display_name: displayName,
    status: input.status ?? 'active',
    home_realm_id: homeRealmId ?? null,
    profile: {},
    last_login_at: null,
    created_at: now,
    updated_at: now,
  };
  deps.store.system.insertUser({
    user,
    normalizedUsername: normalised,
    email: email === undefined || input.email === undefined ? undefined : newEmail(id, email, input.email, now),
    credential: input.password === undefined ? undefined : await passwordCredential(deps, id, input.password, now),
  });
  return user;
}

function newEmail(userId: string, email: { email: string; normalised: string }, input: EmailInput, now: number): UserEmail {
  return {
    id: newId(),
    user_id: userId,
    email: email.email,
    normalized_email: email.normalised,
    verified: input.verified,
    is_primary: input.primary,
    created_at: now,
    verified_at: input.verified ? now : null,
  };
}

export function updateUser(deps: SigninDeps, ref: string, input: { status?: UserStatus; displayName?: string }): User {
  const user = requireUser(deps.store, ref);
  const displayName = input.displayName === undefined ? undefined : parseDisplayName(input.displayName);
  deps.store.system.updateUser(user.id, { status: input.status, display_name: displayName }, deps.clock.now());
  return requireUser(deps.store, user.id);
}

export async function setUserPassword(deps: SigninDeps, ref: string, password: string): Promise<User> {
  const user = requireUser(deps.store, ref);
  deps.store.system.upsertCredential(await passwordCredential(deps, user.id, password, deps.clock.now()));
  return user;
}

/** Attaches an email; a verified one applies the home realm rule first (and may be refused). */
export function addEmail(deps: SigninDeps, ref: string, input: EmailInput): UserEmail {
  const user = requireUser(deps.store, ref);
  const email = parseEmail(input.email);
  if (deps.store.system.findEmail(email.normalised) !== undefined) throw duplicate(`email '${email.email}'`);
  const homeRealmId = input.verified ? decideHomeRealmForVerifiedEmail(deps.store, user, email.normalised) : undefined;
  const record = newEmail(user.id, email, input, deps.clock.now());
  deps.store.system.insertEmail(record, homeRealmId);
  return record;
}

/** Marks an email verified; the home realm rule applies as when a verified email is attached. */
export function verifyEmail(deps: SigninDeps, address: string): UserEmail {
  const email = deps.store.system.findEmail(normaliseEmail(address));
  if (email === undefined) throw notFound(`email '${address}'`);
  if (email.verified) return email;
  const user = requireUser(deps.store, email.user_id);
  const homeRealmId = decideHomeRealmForVerifiedEmail(deps.store, user, email.normalized_email);
  const now = deps.clock.now();
  deps.store.system.markEmailVerified(email.id, user.id, now, homeRealmId);
  return { ...email, verified: true, verified_at: now };
}
