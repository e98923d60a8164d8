import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../errors.js';

/** Body limit of ordinary JSON calls. */
export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * Every body is kept as the exact bytes received: signatures are checked over them, and JSON is parsed
 * only after authentication, so an unsigned or malformed body gets the status the spec orders (404,
 * then 401, then 409, then 400), not a parse error first.
 */
export function keepRawBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  // The limit sits on the parser, not the server, so it holds wherever this service is mounted.
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: JSON_BODY_LIMIT }, (_request, body, done) => done(null, body));
}

export function rawBody(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}

/** Parses the raw body as JSON; an empty body is `undefined`. */
export function parseJsonBody(request: FastifyRequest): unknown {
  const raw = rawBody(request);
  if (raw.length === 0) return undefined;
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw new ServiceError(400, 'the body is not valid JSON');
  }
}
