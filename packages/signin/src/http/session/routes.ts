import type { FastifyInstance } from 'fastify';
import { notAuthenticated } from '../../errors.js';
import type { SigninDeps } from '../../domain/deps.js';
import { selectRealm } from '../../domain/realms.js';
import { checkSessionRequest, describeRealm } from '../../domain/session-check.js';
import { endSession } from '../../domain/sessions.js';
import { toRealmMetadata } from '../../domain/types.js';
import { asObject, optionalQueryString, optionalString } from '../body.js';
import { readCookie, serializeClearedCookie, sessionCookieName } from '../cookies.js';
import { sendError } from '../errors.js';
import { hostHeader, isSecureRequest } from '../request-info.js';

export function registerSessionRoutes(app: FastifyInstance, deps: SigninDeps): void {
  // The hot path (benchmarked): cached realm lookup, a handful of prepared statements, no hashing
  // beyond one SHA-256.
  app.get('/api/v1/session', async (request, reply) => {
    const answer = await checkSessionRequest(deps, {
      host: hostHeader(request),
      cookieHeader: request.headers.cookie,
      realmSlug: optionalQueryString(request.query, 'realm'),
      secure: isSecureRequest(request),
    });
    if (answer.setCookie !== null) reply.header('set-cookie', answer.setCookie);
    if (!answer.authenticated) return sendError(reply, notAuthenticated());
    const { user } = answer;
    return {
      realm: toRealmMetadata(answer.realm.settings),
      user: { id: user.id, username: user.username, display_name: user.display_name },
      roles: answer.roles,
      expires_at: answer.expiresAt,
    };
  });

  // Public: what a sign-in page shows before anyone signs in (display name, branding, the duration choice).
  app.get('/api/v1/realm', async (request) => describeRealm(deps, hostHeader(request), optionalQueryString(request.query, 'realm')));

  app.post('/api/v1/logout', async (request, reply) => {
    const body = asObject(request.body, { optional: true });
    const slug = optionalString(body, 'realm') ?? optionalQueryString(request.query, 'realm');
    const realm = await selectRealm(deps.store, hostHeader(request), slug);
    const name = sessionCookieName(realm.realm.slug);
    await endSession(deps, realm, readCookie(request.headers.cookie, name));
    reply.header('set-cookie', serializeClearedCookie(name, isSecureRequest(request)));
    return { ok: true };
  });
}
