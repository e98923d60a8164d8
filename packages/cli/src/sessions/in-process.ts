import type { FastifyRequest } from 'fastify';
import { systemClock, type Clock, type SessionResolver, type SessionViewer } from '@conveyor/pipeline';
import { checkSessionRequest, describeRealm, findActingRoles, SigninError, type SigninDeps } from '@conveyor/signin';
import { cacheSessionChecks, ShortCache } from './cache.js';
import { isSecureRequest, RequestCookies } from './request-parts.js';

async function realmOrNull(lookup: Promise<{ slug: string }>): Promise<string | null> {
  try {
    return (await lookup).slug;
  } catch (error) {
    if (error instanceof SigninError && error.code === 'unknown_realm') return null;
    throw error;
  }
}

/**
 * The session resolver of `conveyor serve`: the sign-in service's own session check, called in the same
 * process. A check is reused for at most 2 s per (realm, cookie digest), and every cached check is
 * forgotten the moment the sign-in side reports a session end (logout, expiry, an administrator ending
 * sessions), so a logged-out cookie is anonymous at the very next request.
 */
export function createInProcessSessions(deps: SigninDeps, options: { clock?: Clock } = {}): SessionResolver & { close(): void } {
  const clock = options.clock ?? systemClock;
  const realms = new ShortCache<Promise<string | null>>(clock);
  const checks = new ShortCache<Promise<SessionViewer | null>>(clock);
  const cookies = new RequestCookies();
  const unsubscribe = deps.sessionEnds.subscribe(() => checks.clear());

  function realmOf(request: FastifyRequest): Promise<string | null> {
    const host = request.headers.host ?? '';
    const cached = realms.get(host);
    if (cached !== undefined) return cached.value;
    const lookup = realmOrNull(describeRealm(deps, request.headers.host, undefined));
    realms.set(host, lookup);
    lookup.catch(() => realms.clear());
    return lookup;
  }

  async function check(request: FastifyRequest, realm: string, token: string): Promise<SessionViewer | null> {
    const answer = await checkSessionRequest(deps, {
      host: request.headers.host,
      // Only this realm's cookie: the check never sees another cookie of the request.
      cookieHeader: `auth_session_${realm}=${token}`,
      realmSlug: realm,
      secure: isSecureRequest(request),
    });
    cookies.add(request, answer.setCookie);
    if (!answer.authenticated) return null;
    return { userId: answer.user.id, username: answer.user.username, realm: answer.realm.realm.slug, roles: answer.roles };
  }

  return {
    realmOf,
    resolve: cacheSessionChecks(checks, realmOf, check),
    rolesOf: (realm, userId) => findActingRoles(deps, realm, userId),
    cookiesFor: (request) => cookies.take(request),
    close: unsubscribe,
  };
}
