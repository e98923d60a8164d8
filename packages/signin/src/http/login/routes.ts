import type { FastifyInstance } from 'fastify';
import { invalidRequest } from '../../errors.js';
import type { SigninDeps } from '../../domain/deps.js';
import { countCharacters } from '../../domain/rules/normalise.js';
import { selectRealm } from '../../domain/realms.js';
import { resolveIdentifier } from '../../domain/resolution.js';
import { MAX_PASSWORD_CHARACTERS } from '../../domain/rules/session-rules.js';
import { signInWithPassword } from '../../domain/sign-in.js';
import { toRealmMetadata } from '../../domain/types.js';
import { asObject, optionalBoolean, optionalString, requiredString } from '../body.js';
import { serializeSessionCookie, sessionCookieName } from '../cookies.js';
import { clientIp, hostHeader, isSecureRequest, userAgent } from '../request-info.js';

export function registerLoginRoutes(app: FastifyInstance, deps: SigninDeps): void {
  app.post('/api/v1/login/resolve', async (request) => {
    const body = asObject(request.body, { optional: false });
    const identifier = requiredString(body, 'identifier');
    const realm = await selectRealm(deps.store, hostHeader(request), optionalString(body, 'realm'));
    const metadata = toRealmMetadata(realm.settings);
    const resolution = await resolveIdentifier(deps.store, identifier);
    if (resolution.next === 'password') return { ...metadata, realm: metadata, next: 'password' };
    const provider = { slug: resolution.provider.slug, display_name: resolution.provider.display_name };
    return { ...metadata, realm: metadata, next: 'provider', provider };
  });

  app.post('/api/v1/login/password', async (request, reply) => {
    // Rule 1 first: every field's type and the password length, before anything is looked up.
    const body = asObject(request.body, { optional: false });
    const identifier = requiredString(body, 'identifier');
    const password = requiredString(body, 'password');
    const slug = optionalString(body, 'realm');
    const longSession = optionalBoolean(body, 'long_session') ?? false;
    if (countCharacters(password) > MAX_PASSWORD_CHARACTERS) throw invalidRequest(`'password' must be at most ${MAX_PASSWORD_CHARACTERS} characters`);
    const realm = await selectRealm(deps.store, hostHeader(request), slug);
    // signInWithPassword checks the attempt limits (429) next, before any lookup or hashing.
    const signedIn = await signInWithPassword(deps, realm, { identifier, password, longSession, userAgent: userAgent(request), ip: clientIp(request) });
    const cookie = serializeSessionCookie(sessionCookieName(realm.realm.slug), signedIn.token, {
      maxAgeSeconds: signedIn.session.ttl,
      secure: isSecureRequest(request),
    });
    reply.header('set-cookie', cookie);
    const { user } = signedIn;
    return {
      realm: toRealmMetadata(realm.settings),
      user: { id: user.id, username: user.username, display_name: user.display_name },
      expires_at: signedIn.session.expires_at,
    };
  });
}
