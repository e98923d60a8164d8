import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { closeIfBodyUnread } from './body.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether the request carries a sign-in session cookie (`auth_session_<realm>`, of any realm). */
export function hasSessionCookie(request: FastifyRequest): boolean {
  const header = request.headers.cookie;
  if (header === undefined) return false;
  return header.split(';').some((part) => {
    const eq = part.indexOf('=');
    return eq > 0 && part.slice(0, eq).trim().startsWith('auth_session_') && part.slice(eq + 1).trim() !== '';
  });
}

function forwardedProto(request: FastifyRequest): string | undefined {
  const header = request.headers['x-forwarded-proto'];
  const raw = Array.isArray(header) ? header[0] : header;
  return raw?.split(',')[0]?.trim().toLowerCase();
}

/**
 * The origins the service answers as: PIPELINE_PUBLIC_URL's, and the one the request addressed (its
 * Host, with the scheme it came in over or `X-Forwarded-Proto`), since every realm has its own hosts.
 */
function ownOrigins(request: FastifyRequest, publicUrl: string | null): Set<string> {
  const origins = new Set<string>();
  if (publicUrl !== null) origins.add(new URL(publicUrl).origin);
  const host = request.headers.host;
  if (host !== undefined && host !== '') {
    for (const scheme of new Set([request.protocol, forwardedProto(request)])) {
      if (scheme === 'http' || scheme === 'https') origins.add(`${scheme}://${host.toLowerCase()}`);
    }
  }
  return origins;
}

/** Whether a cookie-carrying change comes from the service's own pages: `Origin`, else `Sec-Fetch-Site: same-origin`. */
export function isSameOrigin(request: FastifyRequest, publicUrl: string | null): boolean {
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== '') return ownOrigins(request, publicUrl).has(origin.toLowerCase());
  return request.headers['sec-fetch-site'] === 'same-origin';
}

/**
 * CSRF: a request that changes state (any method but GET, HEAD, OPTIONS) and carries a session cookie is
 * refused unless it comes from the service's own origin, before its body is read, so nothing changes.
 * Requests without a session cookie (workers, trigger signatures, API tokens) are not affected: a
 * browser adds cookies to cross-site requests on its own, but never those credentials.
 */
export function refuseCrossSiteChanges(app: FastifyInstance, publicUrl: string | null): void {
  app.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    if (SAFE_METHODS.has(request.method) || !hasSessionCookie(request)) return;
    if (isSameOrigin(request, publicUrl)) return;
    closeIfBodyUnread(request, reply);
    throw errors.crossSite();
  });
}
