import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, errors } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler streams the body and it may be large: bound by a minimum rate, not a deadline. */
    streamedBody?: boolean;
  }
}

export interface BodyLimits {
  /** An ordinary body must have arrived this long after its headers. */
  requestTimeoutMs: number;
  /** A streamed body must bring at least this many bytes per second, measured over windows of requestTimeoutMs. */
  uploadMinBytesPerSecond: number;
}

const TOO_SLOW = JSON.stringify(errorBody(errors.bodyTooSlow()));

function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Ends a request whose body is too slow: a 408 when no answer has started, then the connection is
 * closed, so whatever was waiting for the body sees it end.
 */
function cutOff(request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket;
  if (socket.destroyed) return;
  request.log.warn({ method: request.method, url: request.routeOptions.url }, 'request body too slow; connection closed');
  if (reply.raw.headersSent) {
    socket.destroy();
    return;
  }
  const head = [
    'HTTP/1.1 408 Request Timeout',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(TOO_SLOW)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${TOO_SLOW}`, () => socket.destroy());
}

function watchDeadline(request: FastifyRequest, reply: FastifyReply, limits: BodyLimits): () => void {
  const timer = setTimeout(() => {
    if (!request.raw.complete) cutOff(request, reply);
  }, limits.requestTimeoutMs);
  return () => clearTimeout(timer);
}

/**
 * A streamed upload may take as long as it needs while it keeps bringing bytes: a trickle is cut
 * within one window, a gigabyte at network speed never. Bytes are counted on the socket; while the
 * service itself holds the body back (a paused socket, unread bytes), the client is not blamed.
 */
function watchRate(request: FastifyRequest, reply: FastifyReply, limits: BodyLimits): () => void {
  const socket = request.raw.socket;
  const minimum = Math.ceil((limits.uploadMinBytesPerSecond * limits.requestTimeoutMs) / 1000);
  let counted = socket.bytesRead;
  const timer = setInterval(() => {
    if (request.raw.complete) {
      clearInterval(timer);
      return;
    }
    const arrived = socket.bytesRead - counted;
    counted = socket.bytesRead;
    if (socket.isPaused() || request.raw.readableLength > 0) return;
    if (arrived < minimum) {
      clearInterval(timer);
      cutOff(request, reply);
    }
  }, limits.requestTimeoutMs);
  return () => clearInterval(timer);
}

/**
 * Bounds how long a request body may take on every route of this plugin (Node's own request timeout
 * is off; see serverOptions). A body trickled byte by byte is cut within the request timeout.
 */
export function guardSlowBodies(app: FastifyInstance, limits: BodyLimits): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (hasBody(request.raw)) {
      const watch = request.routeOptions.config.streamedBody === true ? watchRate : watchDeadline;
      reply.raw.once('close', watch(request, reply, limits));
    }
    done();
  });
}
