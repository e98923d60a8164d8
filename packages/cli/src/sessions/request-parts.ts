import type { FastifyRequest } from 'fastify';
import { readCookie, sessionCookieName } from '@conveyor/signin';

/** The session cookie of `realm` in the request, or undefined: another realm's cookie is never read for it. */
export function sessionCookieOf(request: FastifyRequest, realm: string): string | undefined {
  const value = readCookie(request.headers.cookie, sessionCookieName(realm));
  return value === undefined || value === '' ? undefined : value;
}

/** Whether the browser reached us over TLS (directly or, as proxies say, `X-Forwarded-Proto: https`): re-issued cookies then get `Secure`. */
export function isSecureRequest(request: FastifyRequest): boolean {
  if (request.protocol === 'https') return true;
  const header = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

/** Remembers, per request, the Set-Cookie values its session check implied, for `cookiesFor`. */
export class RequestCookies {
  readonly #byRequest = new WeakMap<FastifyRequest, string[]>();

  add(request: FastifyRequest, cookie: string | null): void {
    if (cookie !== null) this.#byRequest.set(request, [...(this.#byRequest.get(request) ?? []), cookie]);
  }

  take(request: FastifyRequest): string[] {
    const cookies = this.#byRequest.get(request) ?? [];
    this.#byRequest.delete(request);
    return cookies;
  }
}
