import type { AttemptKey, AttemptOutcome } from '../domain/rules/attempt-rules.js';
import type {
  Credential,
  IdentityProvider,
  Membership,
  MembershipStatus,
  OidcClient,
  Realm,
  RealmEmailDomain,
  RealmSettings,
  Role,
  Session,
  User,
  UserEmail,
  UserStatus,
} from '../domain/types.js';

// The sign-in service's storage contract. Every method is asynchronous so that a PostgreSQL store can
// implement it; SQLite (better-sqlite3) implements it today. Stores hold queries, not rules: where a
// decision is needed inside an atomic operation, the store calls a pure function from `domain/`.
// `store/contract.ts` is the suite every implementation must pass.

export interface NewUser {
  user: User;
  normalizedUsername: string;
  email?: UserEmail;
  credential?: Credential;
}

export interface NewRealmData {
  settings: RealmSettings;
  roles: Role[];
  /** The built-in admin-ui client with the ids of its required roles. */
  client: OidcClient;
  clientRoleIds: string[];
}

export type AttemptReservation = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface AttemptSettlement extends AttemptKey {
  outcome: AttemptOutcome;
}

export type SessionTouch =
  | { state: 'missing' }
  /** The session had expired and is deleted. */
  | { state: 'expired' }
  | { state: 'live'; session: Session; refreshed: boolean };

export type SettingsPatch = Partial<Pick<RealmSettings, 'display_name' | 'status' | 'branding' | 'allow_session_duration_choice'>>;

/** System level: realms, hosts, email domains, users, emails, credentials, sign-in attempt counters. */
export interface SystemStore {
  findRealmByHost(host: string): Promise<Realm | undefined>;
  findRealmBySlug(slug: string): Promise<Realm | undefined>;
  findRealmById(id: string): Promise<Realm | undefined>;
  /** Sorted by slug. */
  listRealms(): Promise<Realm[]>;
  listHosts(realmId: string): Promise<string[]>;
  countHosts(): Promise<number>;
  /** Atomic: the realm and its hosts, or nothing; a taken slug or host is `duplicate`. */
  insertRealm(realm: Realm, hosts: readonly string[]): Promise<void>;
  /** A taken host is `duplicate`. */
  insertHost(host: string, realmId: string, now: number): Promise<void>;

  findDomain(domain: string): Promise<RealmEmailDomain | undefined>;
  listDomains(realmId: string): Promise<RealmEmailDomain[]>;
  /** Atomic: the domain, and the listed users without a home realm get its realm. */
  insertDomain(domain: RealmEmailDomain, homeRealmUserIds: readonly string[]): Promise<void>;
  /** Atomic: marks the domain verified and gives the listed users (without a home realm) its realm. */
  markDomainVerified(domain: string, realmId: string, now: number, homeRealmUserIds: readonly string[]): Promise<void>;
  /** Users with a verified email whose domain part matches `domain` (see `emailHasDomain`). */
  listUserIdsWithVerifiedEmailDomain(domain: string): Promise<string[]>;

  findUserById(id: string): Promise<User | undefined>;
  findUserByUsername(normalizedUsername: string): Promise<User | undefined>;
  /** Verified emails only (spec). */
  findUserByVerifiedEmail(normalizedEmail: string): Promise<User | undefined>;
  findCredential(userId: string, type: string): Promise<Credential | undefined>;
  /** Primary first, then oldest. */
  listEmails(userId: string): Promise<UserEmail[]>;
  findEmail(normalizedEmail: string): Promise<UserEmail | undefined>;
  /** Atomic: user, optional first email and credential, or nothing; a taken username or email is `duplicate`. */
  insertUser(input: NewUser): Promise<void>;
  updateUser(id: string, patch: { status?: UserStatus; display_name?: string }, now: number): Promise<void>;
  recordLogin(userId: string, now: number): Promise<void>;
  /** Atomic: the email (a primary one clears the user's other primaries) and the home realm if given. */
  insertEmail(email: UserEmail, homeRealmId: string | undefined): Promise<void>;
  markEmailVerified(emailId: string, userId: string, now: number, homeRealmId: string | undefined): Promise<void>;
  /** At most one credential per (user, type): a new one replaces the old secret. */
  upsertCredential(credential: Credential): Promise<void>;

  /**
   * Atomic across all `keys`: each key's counter is judged by `decideAttempt`; when every key allows,
   * each gets one pending attempt; when any refuses, nothing changes and the longest wait is returned.
   * Concurrent calls (from this or another process) never let more attempts through than the rules do.
   */
  reserveAttempts(keys: readonly AttemptKey[], now: number): Promise<AttemptReservation>;
  /** Atomic: settles one reserved attempt per key with `settleAttempt`; also drops expired counters. */
  settleAttempts(settlements: readonly AttemptSettlement[], now: number): Promise<void>;

  close(): Promise<void>;
}

/** One realm: settings, memberships, roles, providers, clients and sessions. */
export interface RealmStore {
  getSettings(): Promise<RealmSettings | undefined>;
  /** Atomic: settings, built-in roles and the admin-ui client of a new realm. */
  initialise(input: NewRealmData): Promise<void>;
  /** Atomic: with `endSessions`, every session of the realm is deleted in the same transaction. */
  updateSettings(patch: SettingsPatch, now: number, options?: { endSessions?: boolean }): Promise<void>;

  findMembership(userId: string): Promise<Membership | undefined>;
  /** Sorted ascending. */
  listRoleSlugs(userId: string): Promise<string[]>;
  listRoles(): Promise<Role[]>;
  findRoleBySlug(slug: string): Promise<Role | undefined>;
  /** Atomic: creates or updates the membership; `roleIds` (when given) replaces the roles. */
  saveMembership(userId: string, status: MembershipStatus | undefined, roleIds: readonly string[] | undefined, now: number): Promise<void>;

  /** The provider mapped to an email domain, enabled or not. */
  findProviderForDomain(domain: string): Promise<IdentityProvider | undefined>;
  findProviderBySlug(slug: string): Promise<IdentityProvider | undefined>;
  insertProvider(provider: IdentityProvider, clientSecret: string): Promise<void>;
  setProviderEnabled(providerId: string, enabled: boolean, now: number): Promise<void>;
  /** A domain maps to one provider; mapping it again replaces the provider. */
  mapDomainToProvider(domain: string, providerId: string, now: number): Promise<void>;

  findClient(clientId: string): Promise<OidcClient | undefined>;
  insertClient(client: OidcClient, roleIds: readonly string[]): Promise<void>;

  /**
   * Atomic: deletes every expired session of the realm, then stores the new one, unless the realm's
   * settings no longer accept sessions (`acceptsNewSessions`): then nothing is stored and false is returned.
   */
  createSession(session: Session, now: number): Promise<boolean>;
  findSession(id: string): Promise<Session | undefined>;
  /**
   * Atomic: applies `decideSessionTouch` to the session: an expired one is deleted; one due for a
   * refresh gets `last_seen_at` = now and a new expiry (once, however many requests race for it).
   */
  touchSession(id: string, now: number): Promise<SessionTouch>;
  deleteSession(id: string): Promise<void>;
  /** Deletes every session of the user in this realm; returns how many. */
  deleteUserSessions(userId: string): Promise<number>;
  countSessions(): Promise<number>;

  close(): Promise<void>;
}

/** The whole storage: the system level plus one realm store per realm. */
export interface SigninStore {
  readonly system: SystemStore;
  /** The realm's store, or undefined when the realm has no data. */
  realm(realmId: string): Promise<RealmStore | undefined>;
  /** Creates (or opens) the realm's storage with its schema. */
  createRealmData(realmId: string): Promise<RealmStore>;
  /** Undoes `createRealmData` when registering the realm fails. */
  removeRealmData(realmId: string): Promise<void>;
  close(): Promise<void>;
}
