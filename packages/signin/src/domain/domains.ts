import { randomBytes } from 'node:crypto';
import { duplicate, notFound } from '../errors.js';
import type { SigninDeps } from './deps.js';
import { normaliseDomain, parseDomain } from './normalise.js';
import { requireRealm } from './realms.js';
import type { RealmEmailDomain } from './types.js';

/**
 * Users who get the realm as home realm when it verifies `domain`: those with a verified email there
 * and no home realm yet. (The spec names only email attachment; applying the same rule when the
 * domain side becomes verified keeps "verified email + verified domain => home realm" true.)
 */
function listUsersGainingHomeRealm(deps: SigninDeps, domain: string): string[] {
  return deps.store.system
    .listUserIdsWithVerifiedEmailDomain(domain)
    .filter((userId) => deps.store.system.findUserById(userId)?.home_realm_id === null);
}

export function addDomain(deps: SigninDeps, input: { realm: string; domain: string; verified: boolean }): RealmEmailDomain {
  const { realm } = requireRealm(deps.store, input.realm);
  const domain = parseDomain(input.domain);
  if (deps.store.system.findDomain(domain) !== undefined) throw duplicate(`domain '${domain}'`);
  const now = deps.clock.now();
  const record: RealmEmailDomain = {
    domain,
    realm_id: realm.id,
    verified: input.verified,
    verification_token: input.verified ? null : randomBytes(24).toString('base64url'),
    verified_at: input.verified ? now : null,
    created_at: now,
  };
  deps.store.system.insertDomain(record, input.verified ? listUsersGainingHomeRealm(deps, domain) : []);
  return record;
}

export function verifyDomain(deps: SigninDeps, input: { domain: string }): RealmEmailDomain {
  const domain = normaliseDomain(input.domain);
  const record = deps.store.system.findDomain(domain);
  if (record === undefined) throw notFound(`domain '${input.domain}'`);
  if (record.verified) return record;
  const now = deps.clock.now();
  deps.store.system.markDomainVerified(domain, record.realm_id, now, listUsersGainingHomeRealm(deps, domain));
  return { ...record, verified: true, verified_at: now };
}
