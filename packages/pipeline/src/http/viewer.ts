import type { FastifyRequest } from 'fastify';
import type { SessionViewer } from '../domain/policies.js';
import { errors } from '../errors.js';
import type { HttpContext } from './context.js';

/**
 * The signed-in person behind a management call, or 401 `not_signed_in`. (Minimal: the session cookie
 * only; API tokens join here once their lookup exists.)
 */
export async function requireViewer(request: FastifyRequest, context: HttpContext): Promise<SessionViewer> {
  const viewer = await context.sessions.resolve(request);
  if (viewer === null) throw errors.notSignedIn();
  return viewer;
}
