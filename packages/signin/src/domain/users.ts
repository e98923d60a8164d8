import { duplicate, invalidRequest, notFound } from '../errors.js';
import type { SigninStore } from '../store/types.js';
import { newId, type SigninDeps } from './deps.js';
import { decideHomeRealmForVerifiedEmail } from './home-realm.js';
import { countCharacters, normaliseEmail, normaliseUsername, parseDisplayName, parseEmail, parseUsername } from './rules/normalise.js';
import { endUserSessions } from './sessions.js';
import { MAX_PASSWORD_CHARACTERS } from './rules/session-rules.js';
import type { Credential, User, UserEmail, UserStatus } from './types.js';

/** USER on the command line: an id or a username. */
export async function requireUser(store: SigninStore, ref: string): Promise<User> {
  const user = (await store.system.findUserById(ref.trim())) ?? (await store.system.findUserByUsername(normaliseUsername(ref)));
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
  if ((await deps.store.system.findUserByUsername(normalised)) !== undefined) throw duplicate(`username '${username}'`);
  if (email !== undefined && (await deps.store.system.findEmail(email.normalised)) !== undefined) throw duplicate(`email '${email.email}'`);
  const now = deps.clock.now();
  const id = newId();
  const homeRealmId = email !== undefined && input.email?.verified === true ? await decideHomeRealmForVerifiedEmail(deps.store, { home_realm_id: null }, email.normalised) : undefined;
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
  await deps.store.system.insertUser({
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

/** Changes a user's status or display name; disabling a user ends the user's sessions in every realm. */
export async function updateUser(deps: SigninDeps, ref: string, input: { status?: UserStatus; displayName?: string }): Promise<User> {
  const user = await requireUser(deps.store, ref);
  const displayName = input.displayName === undefined ? undefined : parseDisplayName(input.displayName);
  await deps.store.system.updateUser(user.id, { status: input.status, display_name: displayName }, deps.clock.now());
  if (input.status === 'disabled') await endUserSessions(deps, user.id);
  return requireUser(deps.store, user.id);
}

/**
 * Replaces the user's password and ends the user's sessions in every realm (after the new password is
 * stored, so a session made with the old one before the change does not survive it).
 */
export async function setUserPassword(deps: SigninDeps, ref: string, password: string): Promise<User> {
  const user = await requireUser(deps.store, ref);
  await deps.store.system.upsertCredential(await passwordCredential(deps, user.id, password, deps.clock.now()));
  await endUserSessions(deps, user.id);
  return user;
}

/** Attaches an email; a verified one applies the home realm rule first (and may be refused). */
export async function addEmail(deps: SigninDeps, ref: string, input: EmailInput): Promise<UserEmail> {
  const user = await requireUser(deps.store, ref);
  const email = parseEmail(input.email);
  if ((await deps.store.system.findEmail(email.normalised)) !== undefined) throw duplicate(`email '${email.email}'`);
  const homeRealmId = input.verified ? await decideHomeRealmForVerifiedEmail(deps.store, user, email.normalised) : undefined;
  const record = newEmail(user.id, email, input, deps.clock.now());
  await deps.store.system.insertEmail(record, homeRealmId);
  return record;
}

/** Marks an email verified; the home realm rule applies as when a verified email is attached. */
export async function verifyEmail(deps: SigninDeps, address: string): Promise<UserEmail> {
  const email = await deps.store.system.findEmail(normaliseEmail(address));
  if (email === undefined) throw notFound(`email '${address}'`);
  if (email.verified) return email;
  const user = await requireUser(deps.store, email.user_id);
  const homeRealmId = await decideHomeRealmForVerifiedEmail(deps.store, user, email.normalized_email);
  const now = deps.clock.now();
  await deps.store.system.markEmailVerified(email.id, user.id, now, homeRealmId);
  return { ...email, verified: true, verified_at: now };
}
