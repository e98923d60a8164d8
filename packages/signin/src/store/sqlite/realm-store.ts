import Database from 'better-sqlite3';
import { duplicate } from '../../errors.js';
import { acceptsNewSessions, computeExpiresAt, decideSessionTouch } from '../../domain/rules/session-rules.js';
import type { IdentityProvider, Membership, MembershipStatus, OidcClient, RealmSettings, Role, Session } from '../../domain/types.js';
import type { NewRealmData, RealmStore, SessionTouch, SettingsPatch } from '../types.js';
import { ChangeWatch } from './change-watch.js';
import { toProvider, toSettings, type ProviderRow, type SettingsRow } from './rows.js';
import { configureConnection, REALM_SCHEMA } from './schema.js';

/** One realm's file: settings, memberships, roles, providers, clients and sessions. */
export class SqliteRealmStore implements RealmStore {
  private readonly db: Database.Database;
  private readonly watch: ChangeWatch;
  private settings: RealmSettings | undefined;
  private readonly statements;

  constructor(path: string, options: { create: boolean }) {
    this.db = new Database(path, { fileMustExist: !options.create });
    configureConnection(this.db);
    this.db.exec(REALM_SCHEMA);
    this.watch = new ChangeWatch(this.db);
    const db = this.db;
    this.statements = {
      session: db.prepare<[string], Session>('SELECT id, user_id, ttl, created_at, expires_at, last_seen_at, user_agent, ip FROM sessions WHERE id = ?'),
      deleteSession: db.prepare<[string]>('DELETE FROM sessions WHERE id = ?'),
      extendSession: db.prepare<[number, number, string, number]>('UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ? AND last_seen_at = ?'),
      deleteUserSessions: db.prepare<[string]>('DELETE FROM sessions WHERE user_id = ?'),
      // The comparison is `isExpired` of domain/session-rules.ts, kept in SQL to use the index; the
      // contract suite checks the boundary (expires_at = now is expired) for every store.
      deleteExpired: db.prepare<[number]>('DELETE FROM sessions WHERE expires_at <= ?'),
      insertSession: db.prepare<[string, string, number, number, number, number, string | null, string | null]>(
        'INSERT INTO sessions (id, user_id, ttl, created_at, expires_at, last_seen_at, user_agent, ip) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      membership: db.prepare<[string], Membership>('SELECT user_id, status, created_at, updated_at FROM memberships WHERE user_id = ?'),
      roleSlugs: db
        .prepare<[string], string>('SELECT r.slug FROM membership_roles mr JOIN roles r ON r.id = mr.role_id WHERE mr.user_id = ? ORDER BY r.slug')
        .pluck(),
      providerForDomain: db.prepare<[string], ProviderRow>(
        'SELECT p.id, p.slug, p.display_name, p.enabled, p.issuer, p.client_id, p.created_at, p.updated_at FROM email_domain_providers m JOIN identity_providers p ON p.id = m.provider_id WHERE m.domain = ?',
      ),
    };
  }

  async close(): Promise<void> {
    this.db.close();
  }

  /** True when the file has its settings record (a realm without settings is refused). */
  async getSettings(): Promise<RealmSettings | undefined> {
    return this.readSettings();
  }

  private readSettings(): RealmSettings | undefined {
    if (this.watch.changed()) {
      const row = this.db.prepare<[], SettingsRow>('SELECT * FROM realm_settings WHERE id = 1').get();
      this.settings = row === undefined ? undefined : toSettings(row);
    }
    return this.settings;
  }

  /** Writes the settings, built-in roles and the admin-ui client of a new realm file, all or nothing. */
  async initialise(input: NewRealmData): Promise<void> {
    const { settings, client } = input;
    this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO realm_settings (id, slug, display_name, kind, status, branding, allow_session_duration_choice, created_at, updated_at) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)')
        .run(settings.slug, settings.display_name, settings.kind, settings.status, JSON.stringify(settings.branding), settings.allow_session_duration_choice ? 1 : 0, settings.created_at, settings.updated_at);
      for (const role of input.roles) {
        this.db.prepare('INSERT INTO roles (id, slug, name, created_at) VALUES (?, ?, ?, ?)').run(role.id, role.slug, role.name, role.created_at);
      }
      this.insertClientRows(client, input.clientRoleIds);
    })();
    this.watch.markDirty();
  }

  async updateSettings(patch: SettingsPatch, now: number, options: { endSessions?: boolean } = {}): Promise<void> {
    this.db.transaction(() => {
      const current = this.readSettings();
      if (current === undefined) return;
      const next = { ...current, ...patch };
      this.db
        .prepare('UPDATE realm_settings SET display_name = ?, status = ?, branding = ?, allow_session_duration_choice = ?, updated_at = ? WHERE id = 1')
        .run(next.display_name, next.status, JSON.stringify(next.branding), next.allow_session_duration_choice ? 1 : 0, now);
      if (options.endSessions === true) this.db.prepare('DELETE FROM sessions').run();
    }).immediate();
    this.watch.markDirty();
  }

  // --- memberships and roles ---

  async findMembership(userId: string): Promise<Membership | undefined> {
    return this.statements.membership.get(userId);
  }

  /** Role slugs of a user in this realm, sorted ascending. */
  async listRoleSlugs(userId: string): Promise<string[]> {
    return this.statements.roleSlugs.all(userId);
  }

  async listRoles(): Promise<Role[]> {
    return this.db.prepare<[], Role>('SELECT id, slug, name, created_at FROM roles ORDER BY slug').all();
  }

  async findRoleBySlug(slug: string): Promise<Role | undefined> {
    return this.db.prepare<[string], Role>('SELECT id, slug, name, created_at FROM roles WHERE slug = ?').get(slug);
  }

  /**
   * Creates or updates a membership; `roleIds` (when given) replaces the member's roles.
   * One transaction, so a refused role never leaves a half-made membership.
   */
  async saveMembership(userId: string, status: MembershipStatus | undefined, roleIds: readonly string[] | undefined, now: number): Promise<void> {
    this.db.transaction(() => {
      const existing = this.statements.membership.get(userId);
      if (existing === undefined) {
        this.db.prepare('INSERT INTO memberships (user_id, status, created_at, updated_at) VALUES (?, ?, ?, ?)').run(userId, status ?? 'active', now, now);
      } else {
        this.db.prepare('UPDATE memberships SET status = ?, updated_at = ? WHERE user_id = ?').run(status ?? existing.status, now, userId);
      }
      if (roleIds !== undefined) {
        this.db.prepare('DELETE FROM membership_roles WHERE user_id = ?').run(userId);
        const insert = this.db.prepare('INSERT INTO membership_roles (user_id, role_id) VALUES (?, ?)');
        for (const roleId of new Set(roleIds)) insert.run(userId, roleId);
      }
    })();
  }

  // --- identity providers ---

  /** The provider mapped to an email domain in this realm, if any (enabled or not). */
  async findProviderForDomain(domain: string): Promise<IdentityProvider | undefined> {
    const row = this.statements.providerForDomain.get(domain);
    return row === undefined ? undefined : toProvider(row);
  }

  async findProviderBySlug(slug: string): Promise<IdentityProvider | undefined> {
    const row = this.db
      .prepare<[string], ProviderRow>('SELECT id, slug, display_name, enabled, issuer, client_id, created_at, updated_at FROM identity_providers WHERE slug = ?')
      .get(slug);
    return row === undefined ? undefined : toProvider(row);
  }

  async insertProvider(provider: IdentityProvider, clientSecret: string): Promise<void> {
    if (this.db.prepare('SELECT 1 FROM identity_providers WHERE slug = ?').get(provider.slug) !== undefined) throw duplicate(`provider '${provider.slug}'`);
    this.db
      .prepare('INSERT INTO identity_providers (id, slug, display_name, enabled, issuer, client_id, client_secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(provider.id, provider.slug, provider.display_name, provider.enabled ? 1 : 0, provider.issuer, provider.client_id, clientSecret, provider.created_at, provider.updated_at);
  }

  async setProviderEnabled(providerId: string, enabled: boolean, now: number): Promise<void> {
    this.db.prepare('UPDATE identity_providers SET enabled = ?, updated_at = ? WHERE id = ?').run(enabled ? 1 : 0, now, providerId);
  }

  /** A domain maps to one provider; mapping it again replaces the provider. */
  async mapDomainToProvider(domain: string, providerId: string, now: number): Promise<void> {
    this.db
      .prepare('INSERT INTO email_domain_providers (domain, provider_id, created_at) VALUES (?, ?, ?) ON CONFLICT (domain) DO UPDATE SET provider_id = excluded.provider_id')
      .run(domain, providerId, now);
  }

  // --- OIDC clients ---

  async findClient(clientId: string): Promise<OidcClient | undefined> {
    const row = this.db
      .prepare<[string], Omit<OidcClient, 'redirect_uris' | 'enabled' | 'required_roles'> & { redirect_uris: string; enabled: number }>(
        'SELECT id, client_id, name, redirect_uris, scopes, access_mode, enabled, created_at, updated_at FROM oidc_clients WHERE client_id = ?',
      )
      .get(clientId);
    if (row === undefined) return undefined;
    const required = this.db
      .prepare<[string], string>('SELECT r.slug FROM oidc_client_required_roles cr JOIN roles r ON r.id = cr.role_id WHERE cr.client_id = ? ORDER BY r.slug')
      .pluck()
      .all(row.id);
    return { ...row, redirect_uris: JSON.parse(row.redirect_uris) as string[], enabled: row.enabled === 1, required_roles: required };
  }

  async insertClient(client: OidcClient, roleIds: readonly string[]): Promise<void> {
    this.db.transaction(() => this.insertClientRows(client, roleIds))();
  }

  private insertClientRows(client: OidcClient, roleIds: readonly string[]): void {
    if (this.db.prepare('SELECT 1 FROM oidc_clients WHERE client_id = ?').get(client.client_id) !== undefined) throw duplicate(`client '${client.client_id}'`);
    this.db
      .prepare('INSERT INTO oidc_clients (id, client_id, name, redirect_uris, scopes, access_mode, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(client.id, client.client_id, client.name, JSON.stringify(client.redirect_uris), client.scopes, client.access_mode, client.enabled ? 1 : 0, client.created_at, client.updated_at);
    const insert = this.db.prepare('INSERT INTO oidc_client_required_roles (client_id, role_id) VALUES (?, ?)');
    for (const roleId of new Set(roleIds)) insert.run(client.id, roleId);
  }

  // --- sessions ---

  async createSession(session: Session, now: number): Promise<boolean> {
    return this.db.transaction(() => {
      // Read under the write lock, so a realm disabled meanwhile gets no session after its purge.
      if (!acceptsNewSessions(this.readSettings())) return false;
      this.statements.deleteExpired.run(now);
      this.statements.insertSession.run(session.id, session.user_id, session.ttl, session.created_at, session.expires_at, session.last_seen_at, session.user_agent, session.ip);
      return true;
    }).immediate();
  }

  async findSession(id: string): Promise<Session | undefined> {
    return this.statements.session.get(id);
  }

  async touchSession(id: string, now: number): Promise<SessionTouch> {
    const session = this.statements.session.get(id);
    if (session === undefined) return { state: 'missing' };
    const decision = decideSessionTouch(session, now);
    if (decision === 'expired') {
      this.statements.deleteSession.run(id);
      return { state: 'expired' };
    }
    if (decision === 'keep') return { state: 'live', session, refreshed: false };
    const next = { ...session, last_seen_at: now, expires_at: computeExpiresAt(now, session.ttl) };
    // Compare-and-set on the value read: of racing requests (or processes) one refreshes, none
    // extends a session deleted in between.
    const changed = this.statements.extendSession.run(next.last_seen_at, next.expires_at, id, session.last_seen_at).changes === 1;
    if (changed) return { state: 'live', session: next, refreshed: true };
    const current = this.statements.session.get(id);
    return current === undefined ? { state: 'missing' } : { state: 'live', session: current, refreshed: false };
  }

  async deleteSession(id: string): Promise<void> {
    this.statements.deleteSession.run(id);
  }

  async deleteUserSessions(userId: string): Promise<number> {
    return this.statements.deleteUserSessions.run(userId).changes;
  }

  async countSessions(): Promise<number> {
    return this.db.prepare<[], number>('SELECT count(*) FROM sessions').pluck().get() ?? 0;
  }
}
