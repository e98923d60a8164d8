import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { DEFAULT_REALM, type SecretProof, type SessionViewer } from '../domain/policies.js';
import type { ReadCredentials } from '../domain/reads.js';
import { safeEqual } from '../ids.js';

export type { SessionViewer } from '../domain/policies.js';

/**
 * The link to the sign-in service: the session behind a request's cookie and the realm its Host selects.
 * The CLI hands one in (in-process for `conveyor serve`, over HTTP with `PIPELINE_SIGNIN_URL`).
 */
export interface SessionResolver {
  /** The viewer behind the request's session cookie (the realm its Host selects); null when none. */
  resolve(request: FastifyRequest): Promise<SessionViewer | null>;
  /** The realm slug the request's Host selects; null for a host no realm has. */
  realmOf(request: FastifyRequest): Promise<string | null>;
  /** A user's current roles in a realm (API tokens re-check rights on each use); null when the user may not act there. */
  rolesOf(realm: string, userId: string): Promise<{ username: string; roles: string[] } | null>;
  /**
   * Set-Cookie values the session check of this request implies (the sign-in service re-issues the cookie
   * when it extends a session, and clears it when it drops one), sent with the pipeline's response so the
   * browser's cookie lives as long as the session. Optional: a resolver without cookies leaves it out.
   */
  cookiesFor?(request: FastifyRequest): string[];
}

/**
 * No sign-in service linked (plain `conveyor pipeline serve`): nobody is signed in, and every host serves
 * the system realm, whose projects are all there is.
 */
export const noSessions: SessionResolver = {
  resolve: async () => null,
  realmOf: async () => DEFAULT_REALM,
  rolesOf: async () => null,
};

/** `X-Hub-Signature-256: sha256=<hex>` over the exact bytes, compared in constant time. */
export function hasValidSignature(request: FastifyRequest, body: Buffer, secret: string): boolean {
  const header = request.headers['x-hub-signature-256'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(body).digest('hex');
  return safeEqual(header.slice('sha256='.length).toLowerCase(), expected);
}

/** The plain-secret headers a push may carry instead: `X-Git-Token` and GitLab's `X-Gitlab-Token`. */
export function hasValidPlainToken(request: FastifyRequest, secret: string): boolean {
  return ['x-git-token', 'x-gitlab-token'].some((name) => {
    const value = request.headers[name];
    return typeof value === 'string' && safeEqual(value, secret);
  });
}

/** A signature over the request's body; with `allowPlainToken` (pushes) the plain-secret headers count too. */
export function bodyProof(request: FastifyRequest, body: Buffer, options: { allowPlainToken: boolean }): SecretProof {
  return {
    proves: (secret) => hasValidSignature(request, body, secret) || (options.allowPlainToken && hasValidPlainToken(request, secret)),
  };
}

/** A reader's credentials: the read signature (an HMAC of the empty body) and the session behind the request. */
export function readCredentials(request: FastifyRequest, sessions: SessionResolver): ReadCredentials {
  return {
    signature: bodyProof(request, Buffer.alloc(0), { allowPlainToken: false }),
    realm: () => sessions.realmOf(request),
    resolveViewer: () => sessions.resolve(request),
  };
}

/** The token of `Authorization: Bearer <token>`, or null. */
export function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  return match?.[1] ?? null;
}
