import { errors } from '../errors.js';
import { API_TOKEN_PREFIX, newApiToken, newId, sha256Hex } from '../ids.js';
import type { ApiToken } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import type { SessionViewer } from './policies.js';

/** Live tokens one person may hold per realm: enough for every machine and script, not a store to fill. */
export const MAX_API_TOKENS = 50;
const CONTROL_CHARACTER = /\p{Cc}/u;

/** Whose a presented API token is; the caller then asks the sign-in side for the user's current roles. */
export interface ApiTokenHolder {
  tokenId: string;
  userId: string;
  realm: string;
}

/**
 * The holder of an API token, found by the token's SHA-256 (the token is never compared, stored or
 * logged); null for anything that is not a live token. Each use is recorded as `last_used_at`.
 */
export async function authenticateApiToken(deps: PipelineDeps, token: string): Promise<ApiTokenHolder | null> {
  if (!token.startsWith(API_TOKEN_PREFIX)) return null;
  const found = await deps.store.findApiTokenByHash(sha256Hex(token));
  if (found === null) return null;
  await deps.store.touchApiToken(found.id, deps.clock.now());
  return { tokenId: found.id, userId: found.userId, realm: found.realm };
}

/** A new token of the viewer in their realm; the token itself is in the answer and nowhere else. */
export async function createApiToken(deps: PipelineDeps, viewer: SessionViewer, input: { name: string }): Promise<{ token: string; record: ApiToken }> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100 || CONTROL_CHARACTER.test(name)) throw errors.invalidRequest('name must be 1 to 100 characters without control characters, e.g. "laptop" or "release script"');
  if ((await deps.store.listApiTokens(viewer.userId, viewer.realm)).length >= MAX_API_TOKENS) {
    throw errors.invalidRequest(`you hold ${MAX_API_TOKENS} API tokens already; revoke one you no longer use first`);
  }
  const token = newApiToken();
  const record: ApiToken = { id: newId(), userId: viewer.userId, realm: viewer.realm, name, createdAt: deps.clock.now(), lastUsedAt: null, revokedAt: null };
  await deps.store.createApiToken(record, sha256Hex(token));
  return { token, record };
}

export function listApiTokens(deps: PipelineDeps, viewer: SessionViewer): Promise<ApiToken[]> {
  return deps.store.listApiTokens(viewer.userId, viewer.realm);
}

/** Revokes one of the viewer's own tokens; anyone else's (or an unknown id) is 404. */
export async function revokeApiToken(deps: PipelineDeps, viewer: SessionViewer, id: string): Promise<void> {
  if (!(await deps.store.revokeApiToken(id, viewer.userId, viewer.realm, deps.clock.now()))) throw errors.notFound(`you have no API token '${id}'`);
}
