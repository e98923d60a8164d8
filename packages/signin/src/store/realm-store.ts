import Database from 'better-sqlite3';
import { duplicate } from '../errors.js';
import type { IdentityProvider, Membership, MembershipStatus, OidcClient, RealmSettings, Role, Session } from '../domain/types.js';
import { ChangeWatch } from './change-watch.js';
import { toProvider, toSettings, type ProviderRow, type SettingsRow } from './rows.js';
import { configureConnection, REALM_SCHEMA } from './schema.js';

export interface NewRealmFile {
  settings: RealmSettings;
  roles: Role[];
  /** The built-in admin-ui client with the ids of its required roles. */
  client: OidcClient;
  clientRoleIds: string[];
}

/** One realm's file: settings, memberships, roles, providers, clients and sessions. */
export class RealmStore {
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
      extendSession: db.prepare<[number, number, string]>('UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?'),
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

  close(): void {
    this.db.close();
  }

  /** True when the file has its settings record (a realm without settings is refused). */
  getSettings(): RealmSettings | undefined {
    if (this.watch.changed()) {
      const row = this.db.prepare<[], SettingsRow>('SELECT * FROM realm_settings WHERE id = 1').get();
      this.settings = row === undefined ? undefined : toSettings(row);
    }
    return this.settings;
  }

  /** Writes the settings, built-in roles and the admin-ui client of a new realm file, all or nothing. */
  initialise(input: NewRealmFile): void {
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

  updateSettings(patch: Partial<Pick<RealmSettings, 'display_name' | 'status' | 'branding' | 'allow_session_duration_choice'>>, now: number): void {
    const current = this.getSettings();
    if (current === undefined) return;
    const next = { ...current, ...patch };
    this.db
      .prepare('UPDATE realm_settings SET display_name = ?, status = ?, branding = ?, allow_session_duration_choice = ?, updated_at = ? WHERE id = 1')
      .run(next.display_name, next.status, JSON.stringify(next.branding), next.allow_session_duration_choice ? 1 : 0, now);
    this.watch.markDirty();
  }

  // --- memberships and roles ---

  findMembership(userId: string): Membership | undefined {
    return this.statements.membership.get(userId);
  }

  /** Role slugs of a user in this realm, sorted ascending. */
  listRoleSlugs(userId: string): string[] {
    return this.statements.roleSlugs.all(userId);
  }

  listRoles(): Role[] {
    return this.db.prepare<[], Role>('SELECT id, slug, name, created_at FROM roles ORDER BY slug').all();
  }

  findRoleBySlug(slug: string): Role | undefined {
    return this.db.prepare<[string], Role>('SELECT id, slug, name, created_at FROM roles WHERE slug = ?').get(slug);
  }

  /**
   * Creates or updates a membership; `roleIds` (when given) replaces the member's roles.
   * One transaction, so a refused role never leaves a half-made membership.
   */
  saveMembership(userId: string, status: MembershipStatus | undefined, roleIds: readonly string[] | undefined, now: number): void {
    this.db.transaction(() => {
      const existing = this.findMembership(userId);
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
  findProviderForDomain(domain: string): IdentityProvider | undefined {
    const row = this.statements.providerForDomain.get(domain);
    return row === undefined ? undefined : toProvider(row);
  }

  findProviderBySlug(slug: string): IdentityProvider | undefined {
    const row = this.db
      .prepare<[string], ProviderRow>('SELECT id, slug, display_name, enabled, issuer, client_id, created_at, updated_at FROM identity_providers WHERE slug = ?')
      .get(slug);
    return row === undefined ? undefined : toProvider(row);
  }

  insertProvider(provider: IdentityProvider, clientSecret: string): void {
    if (this.findProviderBySlug(provider.slug) !== undefined) throw duplicate(`provider '${provider.slug}'`);
    this.db
      .prepare('INSERT INTO identity_providers (id, slug, display_name, enabled, issuer, client_id, client_secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(provider.id, provider.slug, provider.display_name, provider.enabled ? 1 : 0, provider.issuer, provider.client_id, clientSecret, provider.created_at, provider.updated_at);
  }

  setProviderEnabled(providerId: string, enabled: boolean, now: number): void {
    this.db.prepare('UPDATE identity_providers SET enabled = ?, updated_at = ? WHERE id = ?').run(enabled ? 1 : 0, now, providerId);
  }

  /** A domain maps to one provider; mapping it again replaces the provider. */
  mapDomainToProvider(domain: string, providerId: string, now: number): void {
    this.db
      .prepare('INSERT INTO email_domain_providers (domain, provider_id, created_at) VALUES (?, ?, ?) ON CONFLICT (domain) DO UPDATE SET provider_id = excluded.provider_id')
      .run(domain, providerId, now);
  }

  // --- OIDC clients ---

  findClient(clientId: string): OidcClient | undefined {
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

  insertClient(client: OidcClient, roleIds: readonly string[]): void {
    this.db.transaction(() => this.insertClientRows(client, roleIds))();
  }

  private insertClientRows(client: OidcClient, roleIds: readonly string[]): void {
    if (this.findClient(client.client_id) !== undefined) throw duplicate(`client '${client.client_id}'`);
    this.db
      .prepare('INSERT INTO oidc_clients (id, client_id, name, redirect_uris, scopes, access_mode, enabled, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(client.id, client.client_id, client.name, JSON.stringify(client.redirect_uris), client.scopes, client.access_mode, client.enabled ? 1 : 0, client.created_at, client.updated_at);
    const insert = this.db.prepare('INSERT INTO oidc_client_required_roles (client_id, role_id) VALUES (?, ?)');
    for (const roleId of new Set(roleIds)) insert.run(client.id, roleId);
  }

  // --- sessions ---

  /** Atomic: deletes every expired session of the realm, then stores the new one. */
  createSession(session: Session, now: number): void {
    this.db.transaction(() => {
      this.statements.deleteExpired.run(now);
      this.statements.insertSession.run(session.id, session.user_id, session.ttl, session.created_at, session.expires_at, session.last_seen_at, session.user_agent, session.ip);
    })();
  }

  findSession(id: string): Session | undefined {
    return this.statements.session.get(id);
  }

  deleteSession(id: string): void {
    this.statements.deleteSession.run(id);
  }

  extendSession(id: string, lastSeenAt: number, expiresAt: number): void {
    this.statements.extendSession.run(lastSeenAt, expiresAt, id);
  }

  countSessions(): number {
    return this.db.prepare<[], number>('SELECT count(*) FROM sessions').pluck().get() ?? 0;
  }
}
