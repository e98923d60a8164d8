import { duplicate, invalidRequest, notFound } from '../errors.js';
import type { RealmStore } from '../store/types.js';
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

async function resolveRoleIds(store: RealmStore, slugs: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const slug of slugs) {
    const role = await store.findRoleBySlug(slug.trim());
    if (role === undefined) throw invalidRequest(`role '${slug}' does not exist in this realm`);
    ids.push(role.id);
  }
  return ids;
}

export async function addMember(deps: SigninDeps, input: MemberInput): Promise<MemberView> {
  return saveMember(deps, input, 'add');
}

export async function updateMember(deps: SigninDeps, input: MemberInput): Promise<MemberView> {
  return saveMember(deps, input, 'update');
}

async function saveMember(deps: SigninDeps, input: MemberInput, mode: 'add' | 'update'): Promise<MemberView> {
  const realm = await requireRealm(deps.store, input.realm);
  const user = await requireUser(deps.store, input.user);
  const existing = await realm.store.findMembership(user.id);
  if (mode === 'add' && existing !== undefined) throw duplicate(`membership of '${user.username}' in realm '${realm.realm.slug}'`);
  if (mode === 'update' && existing === undefined) throw notFound(`membership of '${user.username}' in realm '${realm.realm.slug}'`);
  const roleIds = input.roles === undefined ? undefined : await resolveRoleIds(realm.store, input.roles);
  await realm.store.saveMembership(user.id, input.status, roleIds, deps.clock.now());
  const saved = await realm.store.findMembership(user.id);
  if (saved === undefined) throw notFound('membership');
  return { ...saved, roles: await realm.store.listRoleSlugs(user.id) };
}
