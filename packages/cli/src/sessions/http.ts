import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { FastifyRequest } from 'fastify';
import { systemClock, type Clock, type SessionResolver, type SessionViewer } from '@conveyor/pipeline';
import { cacheSessionChecks, ShortCache } from './cache.js';
import { RequestCookies } from './request-parts.js';

/** Longest a call to the sign-in service may take before the pipeline's request fails. */
const SIGNIN_TIMEOUT_MS = 5000;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

interface SessionBody {
  realm: { slug: string };
  user: { id: string; username: string };
  roles: string[];
}

/** The sign-in service did not answer as its contract says; the pipeline's request fails with a logged 500. */
export class SigninUnreachableError extends Error {
  constructor(detail: string) {
    super(`the sign-in service at PIPELINE_SIGNIN_URL did not answer properly (${detail}); check that it runs and the URL is right`);
    this.name = 'SigninUnreachableError';
  }
}

function forwardedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.headers.host !== undefined) headers.host = request.headers.host;
  const proto = request.headers['x-forwarded-proto'];
  // The sign-in service marks re-issued cookies Secure when the browser came over https.
  if (typeof proto === 'string') headers['x-forwarded-proto'] = proto;
  else if (request.protocol === 'https') headers['x-forwarded-proto'] = 'https';
  return headers;
}

/**
 * The session resolver of `conveyor pipeline serve` with `PIPELINE_SIGNIN_URL`: the sign-in service's
 * `GET /api/v1/realm` for the realm a Host selects, and `GET /api/v1/session` (the request's Host and
 * its realm's session cookie forwarded) for the viewer, each reused for at most 2 s. A logout reaches
 * another process only through that limit. The sign-in service's Set-Cookie (a re-issued or cleared
 * session cookie) is passed on with the pipeline's response.
 *
 * `rolesOf` is not available over HTTP (the sign-in service has no route that reports another user's
 * roles): it answers null, so API tokens are refused in this mode; use `conveyor serve` for them.
 */
export function createHttpSessions(signinUrl: string, options: { clock?: Clock } = {}): SessionResolver & { close(): void } {
  const clock = options.clock ?? systemClock;
  const base = new URL(signinUrl);
  const secure = base.protocol === 'https:';
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const realms = new ShortCache<Promise<string | null>>(clock);
  const checks = new ShortCache<Promise<SessionViewer | null>>(clock);
  const cookies = new RequestCookies();

  function get(path: string, headers: Record<string, string>): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, base);
      const send = secure ? httpsRequest : httpRequest;
      const outgoing = send(url, { method: 'GET', headers, agent, timeout: SIGNIN_TIMEOUT_MS }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          let body: unknown = null;
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {
            body = null;
          }
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body });
        });
      });
      outgoing.on('timeout', () => outgoing.destroy(new SigninUnreachableError(`no answer within ${SIGNIN_TIMEOUT_MS} ms`)));
      outgoing.on('error', (error) => reject(error instanceof SigninUnreachableError ? error : new SigninUnreachableError(error.message)));
      outgoing.end();
    });
  }

  async function lookUpRealm(request: FastifyRequest): Promise<string | null> {
    const answer = await get('/api/v1/realm', forwardedHeaders(request));
    if (answer.status === 404) return null;
    const slug = (answer.body as { slug?: unknown } | null)?.slug;
    if (answer.status !== 200 || typeof slug !== 'string') throw new SigninUnreachableError(`GET /api/v1/realm answered ${answer.status}`);
    return slug;
  }

  function realmOf(request: FastifyRequest): Promise<string | null> {
    const host = request.headers.host ?? '';
    const cached = realms.get(host);
    if (cached !== undefined) return cached.value;
    const lookup = lookUpRealm(request);
    realms.set(host, lookup);
    lookup.catch(() => realms.clear());
    return lookup;
  }

  async function check(request: FastifyRequest, realm: string, token: string): Promise<SessionViewer | null> {
    const answer = await get('/api/v1/session', { ...forwardedHeaders(request), cookie: `auth_session_${realm}=${token}` });
    const setCookie = answer.headers['set-cookie'];
    for (const cookie of setCookie ?? []) cookies.add(request, cookie);
    if (answer.status === 401 || answer.status === 404) return null;
    const body = answer.body as SessionBody | null;
    if (answer.status !== 200 || typeof body?.user?.id !== 'string' || !Array.isArray(body.roles)) {
      throw new SigninUnreachableError(`GET /api/v1/session answered ${answer.status}`);
    }
    return { userId: body.user.id, username: body.user.username, realm: body.realm.slug, roles: body.roles };
  }

  return {
    realmOf,
    resolve: cacheSessionChecks(checks, realmOf, check),
    rolesOf: async () => null,
    cookiesFor: (request) => cookies.take(request),
    close: () => agent.destroy(),
  };
}
