import { invalidRequest } from '../errors.js';
import { newId, type SigninDeps } from './deps.js';
import { parseDisplayName } from './rules/normalise.js';
import { requireRealm } from './realms.js';
import type { AccessMode, OidcClient } from './types.js';

export interface AddClientInput {
  realm: string;
  clientId: string;
  name: string;
  accessMode?: AccessMode;
  redirectUris?: readonly string[];
  requireRoles?: readonly string[];
}

function parseRedirectUri(value: string): string {
  try {
    const url = new URL(value);
    if (url.hash !== '') throw new Error('fragment');
  } catch {
    throw invalidRequest(`redirect URI '${value}' must be an absolute URL without a fragment`);
  }
  return value;
}

export async function addClient(deps: SigninDeps, input: AddClientInput): Promise<OidcClient> {
  const realm = await requireRealm(deps.store, input.realm);
  const clientId = input.clientId.trim();
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(clientId)) throw invalidRequest(`client id '${input.clientId}' must be 1 to 128 letters, digits, '.', '_' or '-'`);
  const roles = [];
  for (const slug of input.requireRoles ?? []) {
    const role = await realm.store.findRoleBySlug(slug.trim());
    if (role === undefined) throw invalidRequest(`role '${slug}' does not exist in this realm`);
    roles.push(role);
  }
  const now = deps.clock.now();
  const client: OidcClient = {
    id: newId(),
    client_id: clientId,
    name: parseDisplayName(input.name),
    redirect_uris: (input.redirectUris ?? []).map(parseRedirectUri),
    scopes: 'openid profile email',
    access_mode: input.accessMode ?? 'members',
    enabled: true,
    created_at: now,
    updated_at: now,
    required_roles: roles.map((role) => role.slug).sort(),
  };
  await realm.store.insertClient(client, roles.map((role) => role.id));
  return client;
}
