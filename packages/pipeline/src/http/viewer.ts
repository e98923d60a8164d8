import type { FastifyRequest } from 'fastify';
import type { SessionViewer } from '../domain/policies.js';
import { errors } from '../errors.js';
import type { HttpContext } from './context.js';

/**
 * The caller of a management route: the person behind the session cookie (in the realm the Host
 * selects), else 401 `not_signed_in`.
 *
 * `Authorization: Bearer` API tokens are to be accepted here too, through the domain function
 * `authenticateApiToken(deps, token)` (not in this branch yet): a token names its user, whose current
 * roles in the request's realm come from `context.sessions.rolesOf`.
 */
export async function requireViewer(request: FastifyRequest, context: Pick<HttpContext, 'sessions'>): Promise<SessionViewer> {
  const viewer = await context.sessions.resolve(request);
  if (viewer !== null) return viewer;
  throw errors.notSignedIn();
}
