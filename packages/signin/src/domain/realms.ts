import { randomUUID } from 'node:crypto';
import { duplicate, unknownRealm } from '../errors.js';
import type { RealmStore, SettingsPatch, SigninStore } from '../store/types.js';
import type { Clock } from '@conveyor/kit';
import { extractHostFromHeader, parseDisplayName, parseHost, parseSlug } from './rules/normalise.js';
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
export async function selectRealm(store: SigninStore, hostHeader: string | undefined, slug: string | undefined): Promise<SelectedRealm> {
  const host = extractHostFromHeader(hostHeader);
  const realm =
    (host === undefined ? undefined : await store.system.findRealmByHost(host)) ??
    (slug === undefined ? undefined : await store.system.findRealmBySlug(slug));
  if (realm === undefined) throw unknownRealm();
  const realmStore = await store.realm(realm.id);
  const settings = await realmStore?.getSettings();
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
export async function createRealm(store: SigninStore, clock: Clock, input: CreateRealmInput): Promise<Realm> {
  const slug = parseSlug(input.slug);
  const displayName = parseDisplayName(input.displayName ?? slug);
  const hosts = [...new Set((input.hosts ?? []).map(parseHost))];
  if ((await store.system.findRealmBySlug(slug)) !== undefined) throw duplicate(`realm '${slug}'`);
  for (const host of hosts) {
    if ((await store.system.findRealmByHost(host)) !== undefined) throw duplicate(`host '${host}'`);
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

async function registerRealm(store: SigninStore, clock: Clock, input: RealmRegistration): Promise<Realm> {
  const realmStore = await store.createRealmData(input.id);
  try {
    if ((await realmStore.getSettings()) === undefined) await initialiseRealmData(realmStore, clock, input);
    const realm: Realm = { id: input.id, slug: input.slug, owner_user_id: null, created_at: clock.now() };
    await store.system.insertRealm(realm, input.hosts);
    return realm;
  } catch (error) {
    if (input.kind !== 'system') await store.removeRealmData(input.id);
    throw error;
  }
}

/** Every realm file starts with its settings, the built-in roles and the `admin-ui` client. */
async function initialiseRealmData(realmStore: RealmStore, clock: Clock, input: Omit<RealmRegistration, 'id' | 'hosts'>): Promise<void> {
  const now = clock.now();
  const roles = BUILT_IN_ROLES.map((role) => ({ id: randomUUID(), slug: role.slug, name: role.name, created_at: now }));
  await realmStore.initialise({
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
export async function ensureSystemRealm(store: SigninStore, clock: Clock, options: { registerDefaultHosts: boolean }): Promise<void> {
  if ((await store.system.findRealmById(SYSTEM_REALM_ID)) === undefined) {
    await registerRealm(store, clock, { ...SYSTEM_REALM, hosts: [] });
  } else if ((await (await store.realm(SYSTEM_REALM_ID))?.getSettings()) === undefined) {
    // The system row exists but its file went missing: recreate the file with its built-ins.
    await initialiseRealmData(await store.createRealmData(SYSTEM_REALM_ID), clock, SYSTEM_REALM);
  }
  if (options.registerDefaultHosts && (await store.system.countHosts()) === 0) {
    for (const host of DEFAULT_SYSTEM_HOSTS) await store.system.insertHost(host, SYSTEM_REALM_ID, clock.now());
  }
}

/** Finds a realm by slug for administration (disabled realms included); refuses an unknown slug. */
export async function requireRealm(store: SigninStore, slug: string): Promise<{ realm: Realm; store: RealmStore; settings: RealmSettings }> {
  const realm = await store.system.findRealmBySlug(slug.trim());
  const realmStore = realm === undefined ? undefined : await store.realm(realm.id);
  const settings = await realmStore?.getSettings();
  if (realm === undefined || realmStore === undefined || settings === undefined) throw unknownRealm(`no realm with slug '${slug}'`);
  return { realm, store: realmStore, settings };
}

export interface UpdateRealmInput {
  displayName?: string;
  status?: RealmStatus;
  allowSessionDurationChoice?: boolean;
  branding?: JsonObject;
}

/**
 * Changes a realm's settings. Disabling a realm ends all of its sessions in the same transaction;
 * enabling it again does not bring them back.
 */
export async function updateRealm(store: SigninStore, clock: Clock, slug: string, input: UpdateRealmInput): Promise<RealmSettings> {
  const target = await requireRealm(store, slug);
  const patch: SettingsPatch = {};
  if (input.displayName !== undefined) patch.display_name = parseDisplayName(input.displayName);
  if (input.status !== undefined) patch.status = input.status;
  if (input.allowSessionDurationChoice !== undefined) patch.allow_session_duration_choice = input.allowSessionDurationChoice;
  if (input.branding !== undefined) patch.branding = input.branding;
  await target.store.updateSettings(patch, clock.now(), { endSessions: input.status === 'disabled' });
  return (await requireRealm(store, slug)).settings;
}

export async function addRealmHost(store: SigninStore, clock: Clock, slug: string, host: string): Promise<{ slug: string; host: string }> {
  const target = await requireRealm(store, slug);
  const normalised = parseHost(host);
  if ((await store.system.findRealmByHost(normalised)) !== undefined) throw duplicate(`host '${normalised}'`);
  await store.system.insertHost(normalised, target.realm.id, clock.now());
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

export async function listRealms(store: SigninStore): Promise<RealmListing[]> {
  const listing: RealmListing[] = [];
  for (const realm of await store.system.listRealms()) {
    const settings = await (await store.realm(realm.id))?.getSettings();
    listing.push({
      id: realm.id,
      slug: realm.slug,
      display_name: settings?.display_name ?? '',
      kind: settings?.kind ?? 'realm',
      status: settings?.status ?? 'disabled',
      allow_session_duration_choice: settings?.allow_session_duration_choice ?? false,
      hosts: await store.system.listHosts(realm.id),
      domains: (await store.system.listDomains(realm.id)).map((d) => d.domain),
    });
  }
  return listing;
}
