import type { Membership, OidcClient, User } from './types.js';

// The spec's authorisation rules as pure functions over already-loaded records. The admin HTTP API
// that uses them comes later; they are tested on their own now.

export function isRealmAdmin(roles: readonly string[]): boolean {
  return roles.includes('realm-admin');
}

export function isSystemAdmin(roles: readonly string[]): boolean {
  return roles.includes('system-admin');
}

export interface ClientUseContext {
  user: Pick<User, 'status' | 'home_realm_id'>;
  client: Pick<OidcClient, 'enabled' | 'access_mode' | 'required_roles'>;
  realmId: string;
  /** The user's membership in the realm, if any. */
  membership: Pick<Membership, 'status'> | undefined;
  /** The user's role slugs in the realm. */
  roles: readonly string[];
}

function holdsRequiredRole(client: ClientUseContext['client'], roles: readonly string[]): boolean {
  return client.required_roles.length === 0 || client.required_roles.some((role) => roles.includes(role));
}

/** Rule 2: may this user use this OIDC client? */
export function canUseClient(context: ClientUseContext): boolean {
  const { user, client } = context;
  if (user.status !== 'active' || !client.enabled) return false;
  if (client.access_mode === 'public') return true;
  if (context.membership?.status !== 'active') return false;
  if (client.access_mode === 'internal' && user.home_realm_id !== context.realmId) return false;
  return holdsRequiredRole(client, context.roles);
}

export type UserManagementRights = 'full' | 'membership' | 'none';

/**
 * Rule 3: what the actor (with `actorRoles` in realm `realmId`) may do to `target`: a system admin
 * everything; a realm admin everything for users whose home realm is this realm and only their
 * membership for others; anyone else nothing.
 */
export function userManagementRights(actorRoles: readonly string[], realmId: string, target: Pick<User, 'home_realm_id'>): UserManagementRights {
  if (isSystemAdmin(actorRoles)) return 'full';
  if (!isRealmAdmin(actorRoles)) return 'none';
  return target.home_realm_id === realmId ? 'full' : 'membership';
}
