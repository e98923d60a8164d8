import type { SigninStore } from '../store/types.js';
import { extractEmailDomain } from './rules/normalise.js';
import type { IdentityProvider, UserEmail } from './types.js';

export type Resolution = { next: 'password' } | { next: 'provider'; provider: IdentityProvider; realmId: string };

const PASSWORD: Resolution = { next: 'password' };

/**
 * The next sign-in step for an identifier (spec, `/login/resolve`). Independent of the request's
 * realm: an email's domain decides, through the realm that has verified it.
 */
export async function resolveIdentifier(store: SigninStore, identifier: string): Promise<Resolution> {
  const trimmed = identifier.trim();
  if (!trimmed.includes('@')) return PASSWORD;
  return (await resolveProviderForDomain(store, extractEmailDomain(trimmed))) ?? PASSWORD;
}

/** The provider the domain's verified owner maps to it, enabled or not; undefined when none. */
async function resolveProviderForDomain(store: SigninStore, domain: string): Promise<Resolution | undefined> {
  const owned = await store.system.findDomain(domain);
  if (owned === undefined || !owned.verified) return undefined;
  const provider = await (await store.realm(owned.realm_id))?.findProviderForDomain(domain);
  return provider === undefined ? undefined : { next: 'provider', provider, realmId: owned.realm_id };
}

/**
 * Rule 5 of password sign-in: the provider that the user's home realm manages for one of the user's
 * verified emails whose domain the home realm has verified. Emails are tried primary first, then
 * oldest first, so the answer is stable when there are several.
 */
export async function findHomeRealmProvider(store: SigninStore, homeRealmId: string | null, emails: readonly UserEmail[]): Promise<IdentityProvider | undefined> {
  if (homeRealmId === null) return undefined;
  for (const email of emails) {
    if (!email.verified) continue;
    const domain = extractEmailDomain(email.normalized_email);
    const owned = await store.system.findDomain(domain);
    if (owned === undefined || !owned.verified || owned.realm_id !== homeRealmId) continue;
    const provider = await (await store.realm(homeRealmId))?.findProviderForDomain(domain);
    if (provider !== undefined) return provider;
  }
  return undefined;
}
