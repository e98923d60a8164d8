import type { FastifyError, FastifyInstance } from 'fastify';
import { errorBody, errors, ServiceError } from '../errors.js';

/** Fastify's own refusals (body limits, malformed requests) in the catalogue's terms. */
function fromFrameworkError(error: FastifyError): ServiceError | null {
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status >= 500) return null;
  if (status === 413) return errors.bodyTooLarge(error.message);
  return errors.requestRefused(status, error.message);
}

/**
 * Turns every failure into the spec's `{"error": "..."}` body, with the catalogue's code beside it.
 * Unexpected errors become a bare 500 and are logged; their text never reaches the caller.
 */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    const known = error instanceof ServiceError ? error : fromFrameworkError(error);
    if (known !== null) return reply.code(known.status).send(errorBody(known));
    request.log.error({ err: error }, 'request failed');
    return reply.code(500).send(errorBody(errors.internal()));
  });
}

/** Unknown paths: `{"error": "not found"}`, like every other 404 of the service. */
export function installNotFoundHandler(app: FastifyInstance): void {
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(errorBody(errors.notFound())));
}
