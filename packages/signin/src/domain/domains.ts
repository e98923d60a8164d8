import { randomBytes } from 'node:crypto';
import { duplicate, notFound } from '../errors.js';
import type { SigninDeps } from './deps.js';
import { canReceiveHomeRealm } from './rules/home-realm.js';
import { normaliseDomain, parseDomain } from './rules/normalise.js';
import { requireRealm } from './realms.js';
import type { RealmEmailDomain } from './types.js';

/**
 * Users who get the realm as home realm when it verifies `domain`: those with a verified email there
 * and no home realm yet. (The spec names only email attachment; applying the same rule when the
 * domain side becomes verified keeps "verified email + verified domain => home realm" true.)
 */
async function listUsersGainingHomeRealm(deps: SigninDeps, domain: string): Promise<string[]> {
  const gaining: string[] = [];
  for (const userId of await deps.store.system.listUserIdsWithVerifiedEmailDomain(domain)) {
    const user = await deps.store.system.findUserById(userId);
    if (user !== undefined && canReceiveHomeRealm(user)) gaining.push(userId);
  }
  return gaining;
}

export async function addDomain(deps: SigninDeps, input: { realm: string; domain: string; verified: boolean }): Promise<RealmEmailDomain> {
  const { realm } = await requireRealm(deps.store, input.realm);
  const domain = parseDomain(input.domain);
  if ((await deps.store.system.findDomain(domain)) !== undefined) throw duplicate(`domain '${domain}'`);
  const now = deps.clock.now();
  const record: RealmEmailDomain = {
    domain,
    realm_id: realm.id,
    verified: input.verified,
    verification_token: input.verified ? null : randomBytes(24).toString('base64url'),
    verified_at: input.verified ? now : null,
    created_at: now,
  };
  await deps.store.system.insertDomain(record, input.verified ? await listUsersGainingHomeRealm(deps, domain) : []);
  return record;
}

export async function verifyDomain(deps: SigninDeps, input: { domain: string }): Promise<RealmEmailDomain> {
  const domain = normaliseDomain(input.domain);
  const record = await deps.store.system.findDomain(domain);
  if (record === undefined) throw notFound(`domain '${input.domain}'`);
  if (record.verified) return record;
  const now = deps.clock.now();
  await deps.store.system.markDomainVerified(domain, record.realm_id, now, await listUsersGainingHomeRealm(deps, domain));
  return { ...record, verified: true, verified_at: now };
}
