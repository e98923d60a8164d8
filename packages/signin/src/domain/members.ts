import { duplicate, invalidRequest, notFound } from '../errors.js';
import type { RealmStore } from '../store/realm-store.js';
import type { SigninDeps } from './deps.js';
import { requireRealm } from './realms.js';
import { requireUser } from './users.js';
import type { Membership, MembershipStatus } from './types.js';

export interface MemberInput {
  realm: string;
  user: string;
  status?: MembershipStatus;
  /** Role slugs; when given, they replace the member's roles. */
  roles?: readonly string[];
}

export interface MemberView extends Membership {
  roles: string[];
}

function resolveRoleIds(store: RealmStore, slugs: readonly string[]): string[] {
  return slugs.map((slug) => {
    const role = store.findRoleBySlug(slug.trim());
    if (role === undefined) throw invalidRequest(`role '${slug}' does not exist in this realm`);
    return role.id;
  });
}

export function addMember(deps: SigninDeps, input: MemberInput): MemberView {
  return saveMember(deps, input, 'add');
}

export function updateMember(deps: SigninDeps, input: MemberInput): MemberView {
  return saveMember(deps, input, 'update');
}

function saveMember(deps: SigninDeps, input: MemberInput, mode: 'add' | 'update'): MemberView {
  const realm = requireRealm(deps.store, input.realm);
  const user = requireUser(deps.store, input.user);
  const existing = realm.store.findMembership(user.id);
  if (mode === 'add' && existing !== undefined) throw duplicate(`membership of '${user.username}' in realm '${realm.realm.slug}'`);
  if (mode === 'update' && existing === undefined) throw notFound(`membership of '${user.username}' in realm '${realm.realm.slug}'`);
  const roleIds = input.roles === undefined ? undefined : resolveRoleIds(realm.store, input.roles);
  realm.store.saveMembership(user.id, input.status, roleIds, deps.clock.now());
  const saved = realm.store.findMembership(user.id);
  if (saved === undefined) throw notFound('membership');
  return { ...saved, roles: realm.store.listRoleSlugs(user.id) };
}
