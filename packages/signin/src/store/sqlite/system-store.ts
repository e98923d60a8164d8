import Database from 'better-sqlite3';
import { duplicate } from '../../errors.js';
import { emailHasDomain } from '../../domain/rules/normalise.js';
import { canReceiveHomeRealm } from '../../domain/rules/home-realm.js';
import type { Credential, Realm, RealmEmailDomain, User, UserEmail, UserStatus } from '../../domain/types.js';
import type { AttemptKey } from '../../domain/rules/attempt-rules.js';
import type { AttemptReservation, AttemptSettlement, NewUser, SystemStore } from '../types.js';
import { AttemptCounters } from './attempt-counters.js';
import { ChangeWatch } from './change-watch.js';
import { toDomain, toUser, toUserEmail, type DomainRow, type UserEmailRow, type UserRow } from './rows.js';
import { configureConnection, SYSTEM_SCHEMA } from './schema.js';

interface RealmIndex {
  byId: Map<string, Realm>;
  bySlug: Map<string, Realm>;
  byHost: Map<string, Realm>;
}

/** The system-level file: realms, hosts, email domains, users, emails, credentials, attempt counters. */
export class SqliteSystemStore implements SystemStore {
  private readonly db: Database.Database;
  private readonly watch: ChangeWatch;
  private readonly attempts: AttemptCounters;
  private index: RealmIndex = { byId: new Map(), bySlug: new Map(), byHost: new Map() };
  private readonly statements;

  constructor(path: string) {
    this.db = new Database(path);
    configureConnection(this.db);
    this.db.exec(SYSTEM_SCHEMA);
    this.watch = new ChangeWatch(this.db);
    this.attempts = new AttemptCounters(this.db);
    const db = this.db;
    this.statements = {
      userById: db.prepare<[string], UserRow>('SELECT id, username, display_name, status, home_realm_id, profile, last_login_at, created_at, updated_at FROM users WHERE id = ?'),
      userByUsername: db.prepare<[string], UserRow>('SELECT id, username, display_name, status, home_realm_id, profile, last_login_at, created_at, updated_at FROM users WHERE normalized_username = ?'),
      userByVerifiedEmail: db.prepare<[string], UserRow>(
        'SELECT u.id, u.username, u.display_name, u.status, u.home_realm_id, u.profile, u.last_login_at, u.created_at, u.updated_at FROM users u JOIN user_emails e ON e.user_id = u.id WHERE e.normalized_email = ? AND e.verified = 1',
      ),
      credential: db.prepare<[string, string], Credential>('SELECT * FROM credentials WHERE user_id = ? AND type = ?'),
      emailsOfUser: db.prepare<[string], UserEmailRow>('SELECT * FROM user_emails WHERE user_id = ? ORDER BY is_primary DESC, created_at, id'),
      emailByNormalized: db.prepare<[string], UserEmailRow>('SELECT * FROM user_emails WHERE normalized_email = ?'),
      domain: db.prepare<[string], DomainRow>('SELECT * FROM realm_email_domains WHERE domain = ?'),
      domainsOfRealm: db.prepare<[string], DomainRow>('SELECT * FROM realm_email_domains WHERE realm_id = ? ORDER BY domain'),
      recordLogin: db.prepare<[number, string]>('UPDATE users SET last_login_at = ? WHERE id = ?'),
    };
  }

  async close(): Promise<void> {
    this.db.close();
  }

  // --- realms and hosts (cached: read on every request, written rarely and mostly by the CLI) ---

  private realms(): RealmIndex {
    if (!this.watch.changed()) return this.index;
    const byId = new Map<string, Realm>();
    const bySlug = new Map<string, Realm>();
    const byHost = new Map<string, Realm>();
    for (const realm of this.db.prepare<[], Realm>('SELECT id, slug, owner_user_id, created_at FROM realms').all()) {
      byId.set(realm.id, realm);
      bySlug.set(realm.slug, realm);
    }
    for (const row of this.db.prepare<[], { host: string; realm_id: string }>('SELECT host, realm_id FROM realm_hosts').all()) {
      const realm = byId.get(row.realm_id);
      if (realm !== undefined) byHost.set(row.host, realm);
    }
    this.index = { byId, bySlug, byHost };
    return this.index;
  }

  async findRealmByHost(host: string): Promise<Realm | undefined> {
    return this.realms().byHost.get(host);
  }

  async findRealmBySlug(slug: string): Promise<Realm | undefined> {
    return this.realms().bySlug.get(slug);
  }

  async findRealmById(id: string): Promise<Realm | undefined> {
    return this.realms().byId.get(id);
  }

  async listRealms(): Promise<Realm[]> {
    return [...this.realms().byId.values()].sort((a, b) => a.slug.localeCompare(b.slug));
  }

  async listHosts(realmId: string): Promise<string[]> {
    return [...this.realms().byHost.entries()]
      .filter(([, realm]) => realm.id === realmId)
      .map(([host]) => host)
      .sort();
  }

  async countHosts(): Promise<number> {
    return this.realms().byHost.size;
  }

  /** Inserts a realm and its hosts in one transaction; refuses a taken slug or host. */
  async insertRealm(realm: Realm, hosts: readonly string[]): Promise<void> {
    this.db.transaction(() => {
      if (this.realms().bySlug.has(realm.slug)) throw duplicate(`realm '${realm.slug}'`);
      this.db
        .prepare('INSERT INTO realms (id, slug, owner_user_id, created_at) VALUES (?, ?, ?, ?)')
        .run(realm.id, realm.slug, realm.owner_user_id, realm.created_at);
      for (const host of hosts) this.insertHostRow(host, realm.id, realm.created_at);
    })();
    this.watch.markDirty();
  }

  async insertHost(host: string, realmId: string, now: number): Promise<void> {
    this.db.transaction(() => this.insertHostRow(host, realmId, now))();
    this.watch.markDirty();
  }

  private insertHostRow(host: string, realmId: string, now: number): void {
    const taken = this.db.prepare<[string], { realm_id: string }>('SELECT realm_id FROM realm_hosts WHERE host = ?').get(host);
    if (taken !== undefined) throw duplicate(`host '${host}'`);
    this.db.prepare('INSERT INTO realm_hosts (host, realm_id, created_at) VALUES (?, ?, ?)').run(host, realmId, now);
  }

  // --- realm email domains ---

  async findDomain(domain: string): Promise<RealmEmailDomain | undefined> {
    const row = this.statements.domain.get(domain);
    return row === undefined ? undefined : toDomain(row);
  }

  async listDomains(realmId: string): Promise<RealmEmailDomain[]> {
    return this.statements.domainsOfRealm.all(realmId).map(toDomain);
  }

  async insertDomain(domain: RealmEmailDomain, homeRealmUserIds: readonly string[]): Promise<void> {
    this.db.transaction(() => {
      if (this.statements.domain.get(domain.domain) !== undefined) throw duplicate(`domain '${domain.domain}'`);
      this.db
        .prepare('INSERT INTO realm_email_domains (domain, realm_id, verified, verification_token, verified_at, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(domain.domain, domain.realm_id, domain.verified ? 1 : 0, domain.verification_token, domain.verified_at, domain.created_at);
      this.assignHomeRealm(homeRealmUserIds, domain.realm_id, domain.created_at);
    })();
  }

  /** Marks a domain verified and gives the listed users (who have no home realm) its realm, atomically. */
  async markDomainVerified(domain: string, realmId: string, now: number, homeRealmUserIds: readonly string[]): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('UPDATE realm_email_domains SET verified = 1, verified_at = ? WHERE domain = ?').run(now, domain);
      this.assignHomeRealm(homeRealmUserIds, realmId, now);
    })();
  }

  /**
   * Users holding a verified email whose domain part matches (`emailHasDomain` decides; the LIKE only
   * narrows the rows it is asked about).
   */
  async listUserIdsWithVerifiedEmailDomain(domain: string): Promise<string[]> {
    const rows = this.db
      .prepare<[string], { user_id: string; normalized_email: string }>(
        "SELECT user_id, normalized_email FROM user_emails WHERE verified = 1 AND normalized_email LIKE ? ESCAPE '\\'",
      )
      .all(`%@${domain.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    return [...new Set(rows.filter((row) => emailHasDomain(row.normalized_email, domain)).map((row) => row.user_id))].sort();
  }

  /** Inside the caller's transaction, so the check and the write see the same row. */
  private assignHomeRealm(userIds: readonly string[], realmId: string, now: number): void {
    const update = this.db.prepare('UPDATE users SET home_realm_id = ?, updated_at = ? WHERE id = ?');
    for (const userId of userIds) {
      const row = this.statements.userById.get(userId);
      if (row !== undefined && canReceiveHomeRealm(toUser(row))) update.run(realmId, now, userId);
    }
  }

  // --- users, emails, credentials ---

  async findUserById(id: string): Promise<User | undefined> {
    const row = this.statements.userById.get(id);
    return row === undefined ? undefined : toUser(row);
  }

  async findUserByUsername(normalizedUsername: string): Promise<User | undefined> {
    const row = this.statements.userByUsername.get(normalizedUsername);
    return row === undefined ? undefined : toUser(row);
  }

  /** Lookup by email considers verified emails only (spec). */
  async findUserByVerifiedEmail(normalizedEmail: string): Promise<User | undefined> {
    const row = this.statements.userByVerifiedEmail.get(normalizedEmail);
    return row === undefined ? undefined : toUser(row);
  }

  async findCredential(userId: string, type: string): Promise<Credential | undefined> {
    return this.statements.credential.get(userId, type);
  }

  async listEmails(userId: string): Promise<UserEmail[]> {
    return this.statements.emailsOfUser.all(userId).map(toUserEmail);
  }

  async findEmail(normalizedEmail: string): Promise<UserEmail | undefined> {
    const row = this.statements.emailByNormalized.get(normalizedEmail);
    return row === undefined ? undefined : toUserEmail(row);
  }

  /** Creates a user with an optional first email and password, all or nothing. */
  async insertUser(input: NewUser): Promise<void> {
    const { user } = input;
    this.db.transaction(() => {
      if (this.statements.userByUsername.get(input.normalizedUsername) !== undefined) throw duplicate(`username '${user.username}'`);
      this.db
        .prepare('INSERT INTO users (id, username, normalized_username, display_name, status, home_realm_id, profile, last_login_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(user.id, user.username, input.normalizedUsername, user.display_name, user.status, user.home_realm_id, JSON.stringify(user.profile), user.last_login_at, user.created_at, user.updated_at);
      if (input.email !== undefined) this.insertEmailRow(input.email);
      if (input.credential !== undefined) this.upsertCredentialRow(input.credential);
    })();
  }

  async updateUser(id: string, patch: { status?: UserStatus; display_name?: string }, now: number): Promise<void> {
    const row = this.statements.userById.get(id);
    if (row === undefined) return;
    const user = toUser(row);
    this.db
      .prepare('UPDATE users SET status = ?, display_name = ?, updated_at = ? WHERE id = ?')
      .run(patch.status ?? user.status, patch.display_name ?? user.display_name, now, id);
  }

  async recordLogin(userId: string, now: number): Promise<void> {
    this.statements.recordLogin.run(now, userId);
  }

  /** Adds an email; a primary one clears the user's other primaries; sets the home realm if given. */
  async insertEmail(email: UserEmail, homeRealmId: string | undefined): Promise<void> {
    this.db.transaction(() => {
      this.insertEmailRow(email);
      if (homeRealmId !== undefined) this.assignHomeRealm([email.user_id], homeRealmId, email.created_at);
    })();
  }

  async markEmailVerified(emailId: string, userId: string, now: number, homeRealmId: string | undefined): Promise<void> {
    this.db.transaction(() => {
      this.db.prepare('UPDATE user_emails SET verified = 1, verified_at = ? WHERE id = ?').run(now, emailId);
      if (homeRealmId !== undefined) this.assignHomeRealm([userId], homeRealmId, now);
    })();
  }

  private insertEmailRow(email: UserEmail): void {
    if (this.statements.emailByNormalized.get(email.normalized_email) !== undefined) throw duplicate(`email '${email.email}'`);
    if (email.is_primary) this.db.prepare('UPDATE user_emails SET is_primary = 0 WHERE user_id = ?').run(email.user_id);
    this.db
      .prepare('INSERT INTO user_emails (id, user_id, email, normalized_email, verified, is_primary, created_at, verified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(email.id, email.user_id, email.email, email.normalized_email, email.verified ? 1 : 0, email.is_primary ? 1 : 0, email.created_at, email.verified_at);
  }

  /** At most one credential per (user, type): a new one replaces the old secret. */
  async upsertCredential(credential: Credential): Promise<void> {
    this.upsertCredentialRow(credential);
  }

  private upsertCredentialRow(credential: Credential): void {
    this.db
      .prepare(
        'INSERT INTO credentials (id, user_id, type, secret_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, type) DO UPDATE SET secret_hash = excluded.secret_hash, updated_at = excluded.updated_at',
      )
      .run(credential.id, credential.user_id, credential.type, credential.secret_hash, credential.created_at, credential.updated_at);
  }

  // --- sign-in attempt counters (the rules are in domain/attempt-rules.ts) ---

  async reserveAttempts(keys: readonly AttemptKey[], now: number): Promise<AttemptReservation> {
    return this.attempts.reserve(keys, now);
  }

  async settleAttempts(settlements: readonly AttemptSettlement[], now: number): Promise<void> {
    this.attempts.settle(settlements, now);
  }
}
