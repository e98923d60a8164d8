import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { bodyTooLarge, errorBody, internalError, invalidRequest, SigninError, unknownEndpoint } from '../errors.js';

export function sendError(reply: FastifyReply, error: SigninError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  return reply.code(error.status).send(errorBody(error));
}

/** Fastify's own refusals (body parsing, limits) in the service's error shape. */
function fromFrameworkError(error: FastifyError): SigninError | undefined {
  const status = error.statusCode ?? 500;
  if (status === 413) return bodyTooLarge();
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return invalidRequest('the request body must be JSON (Content-Type: application/json)');
  if (status >= 400 && status < 500) return invalidRequest('the request is malformed');
  return undefined;
}

/** One error handler: spec errors as they are, client errors as invalid_request, the rest as 500. */
export function handleError(error: FastifyError | SigninError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof SigninError) return sendError(reply, error);
  const known = fromFrameworkError(error);
  if (known !== undefined) return sendError(reply, known);
  // Logged without the request's headers or body: they may hold cookies and passwords.
  request.log.error({ err: { message: error.message, stack: error.stack }, url: request.url }, 'unexpected error');
  return sendError(reply, internalError());
}

export function handleNotFound(_request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendError(reply, unknownEndpoint());
}

/** The JSON body parser: an empty body is "no body"; anything that does not parse is invalid_request. */
export function parseJsonBody(_request: FastifyRequest, body: string, done: (error: Error | null, value?: unknown) => void): void {
  if (body.trim() === '') {
    done(null, undefined);
    return;
  }
  try {
    done(null, JSON.parse(body));
  } catch {
    done(invalidRequest('the request body is not valid JSON'));
  }
}

/** Any other content type: refused, so a cross-site form post cannot reach the endpoints. */
export function refuseNonJsonBody(_request: FastifyRequest, _body: string, done: (error: Error | null, value?: unknown) => void): void {
  done(invalidRequest('the request body must be JSON (Content-Type: application/json)'));
}
