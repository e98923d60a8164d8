import Database from 'better-sqlite3';
import { duplicate } from '../errors.js';
import type { Credential, Realm, RealmEmailDomain, User, UserEmail, UserStatus } from '../domain/types.js';
import { ChangeWatch } from './change-watch.js';
import { toDomain, toUser, toUserEmail, type DomainRow, type UserEmailRow, type UserRow } from './rows.js';
import { configureConnection, SYSTEM_SCHEMA } from './schema.js';

export interface NewUser {
  user: User;
  normalizedUsername: string;
  email?: UserEmail;
  credential?: Credential;
}

interface RealmIndex {
  byId: Map<string, Realm>;
  bySlug: Map<string, Realm>;
  byHost: Map<string, Realm>;
}

/** The system-level file: realms, hosts, email domains, users, emails, credentials. */
export class SystemStore {
  private readonly db: Database.Database;
  private readonly watch: ChangeWatch;
  private index: RealmIndex = { byId: new Map(), bySlug: new Map(), byHost: new Map() };
  private readonly statements;

  constructor(path: string) {
    this.db = new Database(path);
    configureConnection(this.db);
    this.db.exec(SYSTEM_SCHEMA);
    this.watch = new ChangeWatch(this.db);
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

  close(): void {
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

  findRealmByHost(host: string): Realm | undefined {
    return this.realms().byHost.get(host);
  }

  findRealmBySlug(slug: string): Realm | undefined {
    return this.realms().bySlug.get(slug);
  }

  findRealmById(id: string): Realm | undefined {
    return this.realms().byId.get(id);
  }

  listRealms(): Realm[] {
    return [...this.realms().byId.values()].sort((a, b) => a.slug.localeCompare(b.slug));
  }

  listHosts(realmId: string): string[] {
    return [...this.realms().byHost.entries()]
      .filter(([, realm]) => realm.id === realmId)
      .map(([host]) => host)
      .sort();
  }

  countHosts(): number {
    return this.realms().byHost.size;
  }

  /** Inserts a realm and its hosts in one transaction; refuses a taken slug or host. */
  insertRealm(realm: Realm, hosts: readonly string[]): void {
    this.db.transaction(() => {
      if (this.findRealmBySlug(realm.slug) !== undefined) throw duplicate(`realm '${realm.slug}'`);
      this.db
        .prepare('INSERT INTO realms (id, slug, owner_user_id, created_at) VALUES (?, ?, ?, ?)')
        .run(realm.id, realm.slug, realm.owner_user_id, realm.created_at);
      for (const host of hosts) this.insertHostRow(host, realm.id, realm.created_at);
    })();
    this.watch.markDirty();
  }

  insertHost(host: string, realmId: string, now: number): void {
    this.db.transaction(() => this.insertHostRow(host, realmId, now))();
    this.watch.markDirty();
  }

  private insertHostRow(host: string, realmId: string, now: number): void {
    const taken = this.db.prepare<[string], { realm_id: string }>('SELECT realm_id FROM realm_hosts WHERE host = ?').get(host);
    if (taken !== undefined) throw duplicate(`host '${host}'`);
    this.db.prepare('INSERT INTO realm_hosts (host, realm_id, created_at) VALUES (?, ?, ?)').run(host, realmId, now);
  }

  // --- realm email domains ---

  findDomain(domain: string): RealmEmailDomain | undefined {
    const row = this.statements.domain.get(domain);
    return row === undefined ? undefined : toDomain(row);
  }

  listDomains(realmId: string): RealmEmailDomain[] {
    return this.statements.domainsOfRealm.all(realmId).map(toDomain);
  }

  insertDomain(domain: RealmEmailDomain, homeRealmUserIds: readonly string[]): void {
    this.db.transaction(() => {
      if (this.findDomain(domain.domain) !== undefined) throw duplicate(`domain '${domain.domain}'`);
      this.db
        .prepare('INSERT INTO realm_email_domains (domain, realm_id, verified, verification_token, verified_at, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(domain.domain, domain.realm_id, domain.verified ? 1 : 0, domain.verification_token, domain.verified_at, domain.created_at);
      this.assignHomeRealm(homeRealmUserIds, domain.realm_id, domain.created_at);
    })();
  }

  /** Marks a domain verified and gives the listed users (who have no home realm) its realm, atomically. */
  markDomainVerified(domain: string, realmId: string, now: number, homeRealmUserIds: readonly string[]): void {
    this.db.transaction(() => {
      this.db.prepare('UPDATE realm_email_domains SET verified = 1, verified_at = ? WHERE domain = ?').run(now, domain);
      this.assignHomeRealm(homeRealmUserIds, realmId, now);
    })();
  }

  /** Users holding a verified email whose domain part is `domain` (with or without a trailing dot). */
  listUserIdsWithVerifiedEmailDomain(domain: string): string[] {
    return this.db
      .prepare<[string, string], string>(
        "SELECT DISTINCT user_id FROM user_emails WHERE verified = 1 AND substr(normalized_email, instr(normalized_email, '@') + 1) IN (?, ? || '.') ORDER BY user_id",
      )
      .pluck()
      .all(domain, domain);
  }

  private assignHomeRealm(userIds: readonly string[], realmId: string, now: number): void {
    const update = this.db.prepare('UPDATE users SET home_realm_id = ?, updated_at = ? WHERE id = ? AND home_realm_id IS NULL');
    for (const userId of userIds) update.run(realmId, now, userId);
  }

  // --- users, emails, credentials ---

  findUserById(id: string): User | undefined {
    const row = this.statements.userById.get(id);
    return row === undefined ? undefined : toUser(row);
  }

  findUserByUsername(normalizedUsername: string): User | undefined {
    const row = this.statements.userByUsername.get(normalizedUsername);
    return row === undefined ? undefined : toUser(row);
  }

  /** Lookup by email considers verified emails only (spec). */
  findUserByVerifiedEmail(normalizedEmail: string): User | undefined {
    const row = this.statements.userByVerifiedEmail.get(normalizedEmail);
    return row === undefined ? undefined : toUser(row);
  }

  findCredential(userId: string, type: string): Credential | undefined {
    return this.statements.credential.get(userId, type);
  }

  listEmails(userId: string): UserEmail[] {
    return this.statements.emailsOfUser.all(userId).map(toUserEmail);
  }

  findEmail(normalizedEmail: string): UserEmail | undefined {
    const row = this.statements.emailByNormalized.get(normalizedEmail);
    return row === undefined ? undefined : toUserEmail(row);
  }

  /** Creates a user with an optional first email and password, all or nothing. */
  insertUser(input: NewUser): void {
    const { user } = input;
    this.db.transaction(() => {
      if (this.findUserByUsername(input.normalizedUsername) !== undefined) throw duplicate(`username '${user.username}'`);
      this.db
        .prepare('INSERT INTO users (id, username, normalized_username, display_name, status, home_realm_id, profile, last_login_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(user.id, user.username, input.normalizedUsername, user.display_name, user.status, user.home_realm_id, JSON.stringify(user.profile), user.last_login_at, user.created_at, user.updated_at);
      if (input.email !== undefined) this.insertEmailRow(input.email);
      if (input.credential !== undefined) this.upsertCredentialRow(input.credential);
    })();
  }

  updateUser(id: string, patch: { status?: UserStatus; display_name?: string }, now: number): void {
    const user = this.findUserById(id);
    if (user === undefined) return;
    this.db
      .prepare('UPDATE users SET status = ?, display_name = ?, updated_at = ? WHERE id = ?')
      .run(patch.status ?? user.status, patch.display_name ?? user.display_name, now, id);
  }

  recordLogin(userId: string, now: number): void {
    this.statements.recordLogin.run(now, userId);
  }

  /** Adds an email; a primary one clears the user's other primaries; sets the home realm if given. */
  insertEmail(email: UserEmail, homeRealmId: string | undefined): void {
    this.db.transaction(() => {
      this.insertEmailRow(email);
      if (homeRealmId !== undefined) this.assignHomeRealm([email.user_id], homeRealmId, email.created_at);
    })();
  }

  markEmailVerified(emailId: string, userId: string, now: number, homeRealmId: string | undefined): void {
    this.db.transaction(() => {
      this.db.prepare('UPDATE user_emails SET verified = 1, verified_at = ? WHERE id = ?').run(now, emailId);
      if (homeRealmId !== undefined) this.assignHomeRealm([userId], homeRealmId, now);
    })();
  }

  private insertEmailRow(email: UserEmail): void {
    if (this.findEmail(email.normalized_email) !== undefined) throw duplicate(`email '${email.email}'`);
    if (email.is_primary) this.db.prepare('UPDATE user_emails SET is_primary = 0 WHERE user_id = ?').run(email.user_id);
    this.db
      .prepare('INSERT INTO user_emails (id, user_id, email, normalized_email, verified, is_primary, created_at, verified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(email.id, email.user_id, email.email, email.normalized_email, email.verified ? 1 : 0, email.is_primary ? 1 : 0, email.created_at, email.verified_at);
  }

  /** At most one credential per (user, type): a new one replaces the old secret. */
  upsertCredential(credential: Credential): void {
    this.upsertCredentialRow(credential);
  }

  private upsertCredentialRow(credential: Credential): void {
    this.db
      .prepare(
        'INSERT INTO credentials (id, user_id, type, secret_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (user_id, type) DO UPDATE SET secret_hash = excluded.secret_hash, updated_at = excluded.updated_at',
      )
      .run(credential.id, credential.user_id, credential.type, credential.secret_hash, credential.created_at, credential.updated_at);
  }
}
