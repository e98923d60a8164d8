import { randomUUID } from 'node:crypto';
import { duplicate, unknownRealm } from '../errors.js';
import type { RealmStore } from '../store/realm-store.js';
import type { SigninStore } from '../store/store.js';
import type { Clock } from '../clock.js';
import { extractHostFromHeader, parseDisplayName, parseHost, parseSlug } from './normalise.js';
import {
  ADMIN_UI_CLIENT_ID,
  BUILT_IN_ROLES,
  DEFAULT_SYSTEM_HOSTS,
  SYSTEM_REALM_ID,
  type JsonObject,
  type Realm,
  type RealmKind,
  type RealmSettings,
  type RealmStatus,
} from './types.js';

/** A realm chosen for a request: its record, its active settings and its open store. */
export interface SelectedRealm {
  realm: Realm;
  settings: RealmSettings;
  store: RealmStore;
}

/**
 * Chooses the request's realm: a Host that matches a realm wins; otherwise the slug. A realm with no
 * settings or not `active` is refused like an unknown one.
 */
export function selectRealm(store: SigninStore, hostHeader: string | undefined, slug: string | undefined): SelectedRealm {
  const host = extractHostFromHeader(hostHeader);
  const realm =
    (host === undefined ? undefined : store.system.findRealmByHost(host)) ??
    (slug === undefined ? undefined : store.system.findRealmBySlug(slug));
  if (realm === undefined) throw unknownRealm();
  const realmStore = store.realm(realm.id);
  const settings = realmStore?.getSettings();
  if (realmStore === undefined || settings === undefined || settings.status !== 'active') throw unknownRealm();
  return { realm, settings, store: realmStore };
}

export interface CreateRealmInput {
  slug: string;
  displayName?: string;
  hosts?: readonly string[];
  allowSessionDurationChoice?: boolean;
}

/** Writes a realm's file (settings, built-in roles, admin-ui client) and registers it with its hosts. */
export function createRealm(store: SigninStore, clock: Clock, input: CreateRealmInput): Realm {
  const slug = parseSlug(input.slug);
  const displayName = parseDisplayName(input.displayName ?? slug);
  const hosts = [...new Set((input.hosts ?? []).map(parseHost))];
  if (store.system.findRealmBySlug(slug) !== undefined) throw duplicate(`realm '${slug}'`);
  for (const host of hosts) {
    if (store.system.findRealmByHost(host) !== undefined) throw duplicate(`host '${host}'`);
  }
  return registerRealm(store, clock, { id: randomUUID(), slug, displayName, kind: 'realm', hosts, allowSessionDurationChoice: input.allowSessionDurationChoice ?? true });
}

interface RealmRegistration {
  id: string;
  slug: string;
  displayName: string;
  kind: RealmKind;
  hosts: readonly string[];
  allowSessionDurationChoice: boolean;
}

function registerRealm(store: SigninStore, clock: Clock, input: RealmRegistration): Realm {
  const realmStore = store.createRealmFile(input.id);
  try {
    if (realmStore.getSettings() === undefined) initialiseRealmFile(realmStore, clock, input);
    const realm: Realm = { id: input.id, slug: input.slug, owner_user_id: null, created_at: clock.now() };
    store.system.insertRealm(realm, input.hosts);
    return realm;
  } catch (error) {
    if (input.kind !== 'system') store.removeRealmFile(input.id);
    throw error;
  }
}

/** Every realm file starts with its settings, the built-in roles and the `admin-ui` client. */
function initialiseRealmFile(realmStore: RealmStore, clock: Clock, input: Omit<RealmRegistration, 'id' | 'hosts'>): void {
  const now = clock.now();
  const roles = BUILT_IN_ROLES.map((role) => ({ id: randomUUID(), slug: role.slug, name: role.name, created_at: now }));
  realmStore.initialise({
    settings: {
      slug: input.slug,
      display_name: input.displayName,
      kind: input.kind,
      status: 'active',
      branding: {},
      allow_session_duration_choice: input.allowSessionDurationChoice,
      created_at: now,
      updated_at: now,
    },
    roles,
    client: {
      id: randomUUID(),
      client_id: ADMIN_UI_CLIENT_ID,
      name: 'Admin UI',
      redirect_uris: [],
      scopes: 'openid profile email',
      access_mode: 'members',
      enabled: true,
      created_at: now,
      updated_at: now,
      required_roles: roles.map((role) => role.slug),
    },
    clientRoleIds: roles.map((role) => role.id),
  });
}

const SYSTEM_REALM: Omit<RealmRegistration, 'hosts'> = {
  id: SYSTEM_REALM_ID,
  slug: 'system',
  displayName: 'System',
  kind: 'system',
  allowSessionDurationChoice: true,
};

/**
 * Makes sure the built-in `system` realm exists. At server start-up (`registerDefaultHosts`), when no
 * realm host is registered at all, the local hosts are registered to it.
 */
export function ensureSystemRealm(store: SigninStore, clock: Clock, options: { registerDefaultHosts: boolean }): void {
  if (store.system.findRealmById(SYSTEM_REALM_ID) === undefined) {
    registerRealm(store, clock, { ...SYSTEM_REALM, hosts: [] });
  } else if (store.realm(SYSTEM_REALM_ID)?.getSettings() === undefined) {
    // The system row exists but its file went missing: recreate the file with its built-ins.
    initialiseRealmFile(store.createRealmFile(SYSTEM_REALM_ID), clock, SYSTEM_REALM);
  }
  if (options.registerDefaultHosts && store.system.countHosts() === 0) {
    for (const host of DEFAULT_SYSTEM_HOSTS) store.system.insertHost(host, SYSTEM_REALM_ID, clock.now());
  }
}

/** Finds a realm by slug for administration (disabled realms included); refuses an unknown slug. */
export function requireRealm(store: SigninStore, slug: string): { realm: Realm; store: RealmStore; settings: RealmSettings } {
  const realm = store.system.findRealmBySlug(slug.trim());
  const realmStore = realm === undefined ? undefined : store.realm(realm.id);
  const settings = realmStore?.getSettings();
  if (realm === undefined || realmStore === undefined || settings === undefined) throw unknownRealm(`no realm with slug '${slug}'`);
  return { realm, store: realmStore, settings };
}

export interface UpdateRealmInput {
  displayName?: string;
  status?: RealmStatus;
  allowSessionDurationChoice?: boolean;
  branding?: JsonObject;
}

export function updateRealm(store: SigninStore, clock: Clock, slug: string, input: UpdateRealmInput): RealmSettings {
  const target = requireRealm(store, slug);
  const patch: Parameters<RealmStore['updateSettings']>[0] = {};
  if (input.displayName !== undefined) patch.display_name = parseDisplayName(input.displayName);
  if (input.status !== undefined) patch.status = input.status;
  if (input.allowSessionDurationChoice !== undefined) patch.allow_session_duration_choice = input.allowSessionDurationChoice;
  if (input.branding !== undefined) patch.branding = input.branding;
  target.store.updateSettings(patch, clock.now());
  return requireRealm(store, slug).settings;
}

export function addRealmHost(store: SigninStore, clock: Clock, slug: string, host: string): { slug: string; host: string } {
  const target = requireRealm(store, slug);
  const normalised = parseHost(host);
  if (store.system.findRealmByHost(normalised) !== undefined) throw duplicate(`host '${normalised}'`);
  store.system.insertHost(normalised, target.realm.id, clock.now());
  return { slug: target.realm.slug, host: normalised };
}

export interface RealmListing {
  id: string;
  slug: string;
  display_name: string;
  kind: RealmKind;
  status: RealmStatus;
  allow_session_duration_choice: boolean;
  hosts: string[];
  domains: string[];
}

export function listRealms(store: SigninStore): RealmListing[] {
  return store.system.listRealms().map((realm) => {
    const settings = store.realm(realm.id)?.getSettings();
    return {
      id: realm.id,
      slug: realm.slug,
      display_name: settings?.display_name ?? '',
      kind: settings?.kind ?? 'realm',
      status: settings?.status ?? 'disabled',
      allow_session_duration_choice: settings?.allow_session_duration_choice ?? false,
      hosts: store.system.listHosts(realm.id),
      domains: store.system.listDomains(realm.id).map((d) => d.domain),
    };
  });
}
