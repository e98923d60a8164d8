import type { FastifyRequest } from 'fastify';
import type { TLSSocket } from 'node:tls';

function readFirstValue(header: string | string[] | undefined): string | undefined {
  const raw = Array.isArray(header) ? header[0] : header;
  const first = raw?.split(',')[0]?.trim();
  return first === undefined || first === '' ? undefined : first;
}

/** Cookies get `Secure` on a TLS connection or when the first `X-Forwarded-Proto` is https. */
export function isSecureRequest(request: FastifyRequest): boolean {
  if ((request.raw.socket as Partial<TLSSocket>).encrypted === true) return true;
  return readFirstValue(request.headers['x-forwarded-proto'])?.toLowerCase() === 'https';
}

/** The client IP: the first value of `X-Forwarded-For`, else the socket address. */
export function clientIp(request: FastifyRequest): string | null {
  return readFirstValue(request.headers['x-forwarded-for']) ?? request.raw.socket.remoteAddress ?? null;
}

export function userAgent(request: FastifyRequest): string | null {
  const value = request.headers['user-agent'];
  return value === undefined || value === '' ? null : value;
}

export function hostHeader(request: FastifyRequest): string | undefined {
  return request.headers.host;
}
