import type { FastifyRequest } from 'fastify';
import { authenticateApiToken } from '../domain/api-tokens.js';
import type { SessionViewer } from '../domain/policies.js';
import { errors } from '../errors.js';
import type { HttpContext } from './context.js';
import { bearerToken } from './credentials.js';

/**
 * The person behind a management call: the session cookie first, else an API token in
 * `Authorization: Bearer cvy_...`. A token re-checks its user's rights on each use: the sign-in side
 * answers the user's current roles in the token's realm, and the token counts only on that realm's
 * hosts. Nobody: 401 `not_signed_in`.
 */
export async function requireViewer(request: FastifyRequest, context: HttpContext): Promise<SessionViewer> {
  const session = await context.sessions.resolve(request);
  if (session !== null) return session;
  const viewer = await viewerOfApiToken(request, context);
  if (viewer === null) throw errors.notSignedIn();
  return viewer;
}

/** As requireViewer, but only a session counts: for what an API token may not do (create tokens). */
export async function requireSessionViewer(request: FastifyRequest, context: HttpContext): Promise<SessionViewer> {
  const session = await context.sessions.resolve(request);
  if (session !== null) return session;
  if (bearerToken(request) !== null && (await viewerOfApiToken(request, context)) !== null) throw errors.sessionRequired();
  throw errors.notSignedIn();
}

async function viewerOfApiToken(request: FastifyRequest, context: HttpContext): Promise<SessionViewer | null> {
  const token = bearerToken(request);
  if (token === null) return null;
  const holder = await authenticateApiToken(context.deps, token);
  if (holder === null || (await context.sessions.realmOf(request)) !== holder.realm) return null;
  const current = await context.sessions.rolesOf(holder.realm, holder.userId);
  if (current === null) return null;
  return { userId: holder.userId, username: current.username, realm: holder.realm, roles: current.roles };
}
