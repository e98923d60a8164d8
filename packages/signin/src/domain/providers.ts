import { invalidRequest, notFound } from '../errors.js';
import { newId, type SigninDeps } from './deps.js';
import { normaliseDomain, parseDisplayName, parseSlug } from './rules/normalise.js';
import { requireRealm } from './realms.js';
import type { IdentityProvider } from './types.js';

export interface AddProviderInput {
  realm: string;
  slug: string;
  displayName: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  enabled: boolean;
}

export function parseHttpUrl(value: string, what: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidRequest(`${what} '${value}' is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidRequest(`${what} '${value}' must be an http or https URL`);
  return value;
}

export async function addProvider(deps: SigninDeps, input: AddProviderInput): Promise<IdentityProvider> {
  const realm = await requireRealm(deps.store, input.realm);
  const clientId = input.clientId.trim();
  if (clientId === '') throw invalidRequest('the client id must not be empty');
  if (input.clientSecret === '') throw invalidRequest('the client secret must not be empty');
  const now = deps.clock.now();
  const provider: IdentityProvider = {
    id: newId(),
    slug: parseSlug(input.slug),
    display_name: parseDisplayName(input.displayName),
    enabled: input.enabled,
    issuer: parseHttpUrl(input.issuer.trim(), 'issuer'),
    client_id: clientId,
    created_at: now,
    updated_at: now,
  };
  await realm.store.insertProvider(provider, input.clientSecret);
  return provider;
}

export async function updateProvider(deps: SigninDeps, input: { realm: string; slug: string; enabled: boolean }): Promise<IdentityProvider> {
  const realm = await requireRealm(deps.store, input.realm);
  const provider = await realm.store.findProviderBySlug(input.slug);
  if (provider === undefined) throw notFound(`provider '${input.slug}'`);
  await realm.store.setProviderEnabled(provider.id, input.enabled, deps.clock.now());
  return { ...provider, enabled: input.enabled };
}

/** Maps one of the realm's own email domains to one of its providers. */
export async function mapDomainProvider(deps: SigninDeps, input: { realm: string; domain: string; provider: string }): Promise<{ domain: string; provider: string }> {
  const realm = await requireRealm(deps.store, input.realm);
  const domain = normaliseDomain(input.domain);
  const owned = await deps.store.system.findDomain(domain);
  if (owned === undefined || owned.realm_id !== realm.realm.id) throw invalidRequest(`domain '${domain}' is not an email domain of realm '${realm.realm.slug}'`);
  const provider = await realm.store.findProviderBySlug(input.provider);
  if (provider === undefined) throw notFound(`provider '${input.provider}'`);
  await realm.store.mapDomainToProvider(domain, provider.id, deps.clock.now());
  return { domain, provider: provider.slug };
}
