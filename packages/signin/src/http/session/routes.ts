import type { FastifyInstance } from 'fastify';
import { notAuthenticated } from '../../errors.js';
import type { SigninDeps } from '../../domain/deps.js';
import { selectRealm } from '../../domain/realms.js';
import { endSession, touchSession } from '../../domain/sessions.js';
import { toRealmMetadata } from '../../domain/types.js';
import { asObject, optionalQueryString, optionalString } from '../body.js';
import { readCookie, serializeClearedCookie, serializeSessionCookie, sessionCookieName } from '../cookies.js';
import { sendError } from '../errors.js';
import { hostHeader, isSecureRequest } from '../request-info.js';

export function registerSessionRoutes(app: FastifyInstance, deps: SigninDeps): void {
  // The hot path (benchmarked): cached realm lookup, a handful of prepared statements, no hashing
  // beyond one SHA-256.
  app.get('/api/v1/session', async (request, reply) => {
    const realm = await selectRealm(deps.store, hostHeader(request), optionalQueryString(request.query, 'realm'));
    const name = sessionCookieName(realm.realm.slug);
    const check = await touchSession(deps, realm, readCookie(request.headers.cookie, name));
    if (!check.authenticated) {
      if (check.clearCookie) reply.header('set-cookie', serializeClearedCookie(name, isSecureRequest(request)));
      return sendError(reply, notAuthenticated());
    }
    if (check.refreshed) {
      const token = readCookie(request.headers.cookie, name) ?? '';
      reply.header('set-cookie', serializeSessionCookie(name, token, { maxAgeSeconds: check.session.ttl, secure: isSecureRequest(request) }));
    }
    const { user } = check;
    return {
      realm: toRealmMetadata(realm.settings),
      user: { id: user.id, username: user.username, display_name: user.display_name },
      roles: check.roles,
      expires_at: check.session.expires_at,
    };
  });

  app.post('/api/v1/logout', async (request, reply) => {
    const body = asObject(request.body, { optional: true });
    const slug = optionalString(body, 'realm') ?? optionalQueryString(request.query, 'realm');
    const realm = await selectRealm(deps.store, hostHeader(request), slug);
    const name = sessionCookieName(realm.realm.slug);
    await endSession(realm, readCookie(request.headers.cookie, name));
    reply.header('set-cookie', serializeClearedCookie(name, isSecureRequest(request)));
    return { ok: true };
  });
}
