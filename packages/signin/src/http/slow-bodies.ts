import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, requestTimeout } from '../errors.js';

const TOO_SLOW = JSON.stringify(errorBody(requestTimeout()));

function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** A 408 when no answer has started, then the connection is closed, so the body parser sees the end. */
function cutOff(request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket;
  if (socket.destroyed) return;
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

/**
 * Every body on this plugin's routes must have arrived `requestTimeoutMs` after its headers: a body
 * trickled byte by byte would otherwise hold a connection (and a parser) for as long as it likes.
 * Node's own request timeout is off (see serverOptions), so this works the same in a shared server.
 */
export function guardSlowBodies(app: FastifyInstance, requestTimeoutMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    if (hasBody(request.raw)) {
      const timer = setTimeout(() => {
        if (!request.raw.complete) cutOff(request, reply);
      }, requestTimeoutMs);
      reply.raw.once('close', () => clearTimeout(timer));
    }
    done();
  });
}
