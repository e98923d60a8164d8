import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface SlowBodyGuard {
  /** An ordinary body must have arrived this long after its headers; also the rate-measuring window. */
  requestTimeoutMs: number;
  /** The JSON body of the 408 answer, in the service's own error format. */
  tooSlowBody: unknown;
  /** Routes whose handler streams a possibly large body: bound by a minimum rate, not a deadline. */
  streamed?: {
    isStreamed(request: FastifyRequest): boolean;
    /** At least this many bytes per second, measured over windows of requestTimeoutMs. */
    minBytesPerSecond: number;
  };
}

type Watch = (request: FastifyRequest, reply: FastifyReply) => () => void;
type CutOff = (request: FastifyRequest, reply: FastifyReply) => void;

function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Ends a request whose body is too slow: a 408 when no answer has started, then the connection is
 * closed, so whatever was waiting for the body (a parser, a streaming handler) sees it end.
 */
function cutOffWith(tooSlowBody: unknown): CutOff {
  const body = JSON.stringify(tooSlowBody);
  const head = [
    'HTTP/1.1 408 Request Timeout',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  const answer = `${head.join('\r\n')}\r\n\r\n${body}`;
  return (request, reply) => {
    const socket = request.raw.socket;
    if (socket.destroyed) return;
    request.log.warn({ method: request.method, url: request.routeOptions.url }, 'request body too slow; connection closed');
    if (reply.raw.headersSent) {
      socket.destroy();
      return;
    }
    socket.end(answer, () => socket.destroy());
  };
}

function watchDeadline(requestTimeoutMs: number, cutOff: CutOff): Watch {
  return (request, reply) => {
    const timer = setTimeout(() => {
      if (!request.raw.complete) cutOff(request, reply);
    }, requestTimeoutMs);
    return () => clearTimeout(timer);
  };
}

/**
 * A streamed upload may take as long as it needs while it keeps bringing bytes: a trickle is cut
 * within one window, a gigabyte at network speed never. Bytes are counted on the socket; while the
 * service itself holds the body back (a paused socket, unread bytes), the client is not blamed.
 */
function watchRate(windowMs: number, minBytesPerSecond: number, cutOff: CutOff): Watch {
  const minimum = Math.ceil((minBytesPerSecond * windowMs) / 1000);
  return (request, reply) => {
    const socket = request.raw.socket;
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
    }, windowMs);
    return () => clearInterval(timer);
  };
}

/**
 * Bounds how long a request body may take on every route of the plugin it is installed in (Node's
 * own request timeout is off; see timeoutServerOptions), so it works the same in a shared server. A
 * body trickled byte by byte would otherwise hold a connection (and a parser) as long as it likes.
 */
export function installSlowBodyGuard(app: FastifyInstance, guard: SlowBodyGuard): void {
  const cutOff = cutOffWith(guard.tooSlowBody);
  const deadline = watchDeadline(guard.requestTimeoutMs, cutOff);
  const { streamed } = guard;
  const rate = streamed === undefined ? undefined : watchRate(guard.requestTimeoutMs, streamed.minBytesPerSecond, cutOff);
  app.addHook('onRequest', (request, reply, done) => {
    if (hasBody(request.raw)) {
      const watch = rate !== undefined && streamed?.isStreamed(request) === true ? rate : deadline;
      reply.raw.once('close', watch(request, reply));
    }
    done();
  });
}
