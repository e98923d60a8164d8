import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';

/** A DNS-style name (underscores allowed: container and compose service names carry them), or IPv4. */
const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?$/;
const BRACKETED_IPV6 = /^\[([0-9A-Fa-f:.]+)\]$/;

/** True for `host`, `host:port`, `[v6]` and `[v6]:port`, with a port of 1 to 65535 and nothing else. */
export function isValidHostHeader(value: string): boolean {
  const match = /^(.*?)(?::(\d{1,5}))?$/.exec(value);
  const host = match?.[1] ?? '';
  const port = match?.[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return false;
  const v6 = BRACKETED_IPV6.exec(host);
  if (v6 !== null) return isIPv6(v6[1] ?? '');
  return HOST_NAME.test(host);
}

/**
 * The base of absolute URLs: PIPELINE_PUBLIC_URL, else what the request itself addressed. The Host
 * header is the caller's to write, so without PIPELINE_PUBLIC_URL only a syntactically valid
 * host[:port] is copied into URLs; anything else (paths, query marks, spaces, a bad port) is a 400
 * rather than a URL that points somewhere else.
 */
export function baseUrlOf(request: FastifyRequest, publicUrl: string | null): string {
  if (publicUrl !== null) return publicUrl;
  if (!isValidHostHeader(request.host)) {
    throw errors.invalidHost();
  }
  return `${request.protocol}://${request.host}`;
}
