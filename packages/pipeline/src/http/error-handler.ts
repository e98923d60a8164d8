import type { FastifyError, FastifyInstance } from 'fastify';
import { ServiceError } from '../errors.js';

/**
 * Turns every failure into the spec's `{"error": "..."}` body. Unexpected errors become a bare 500 and
 * are logged; their text never reaches the caller.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    if (error instanceof ServiceError) {
      return reply.code(error.status).send({ error: error.message, ...error.extra });
    }
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'request failed');
      return reply.code(500).send({ error: 'internal error' });
    }
    return reply.code(status).send({ error: error.message });
  });
}

/** Unknown paths: `{"error": "not found"}`, like every other 404 of the service. */
export function installNotFoundHandler(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));
}
