import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { errors } from '../errors.js';

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
    throw errors.invalidJson();
  }
}

/**
 * Bytes of request bodies that may be buffered at once across the routes sharing it. A request
 * reserves its declared length (its route's limit when it declares none, as with chunked bodies)
 * before a byte is read, and gives it back when its response is done or its connection closes.
 */
export class BodyBudget {
  private reserved = 0;

  constructor(readonly totalBytes: number) {}

  /** Reserves `bytes`; the returned release may be called any number of times. Null when they do not fit now. */
  tryReserve(bytes: number): (() => void) | null {
    if (this.reserved + bytes > this.totalBytes) return null;
    this.reserved += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.reserved -= bytes;
    };
  }

  get reservedBytes(): number {
    return this.reserved;
  }
}

/** What a request's body may cost: its declared length up to `limit`; `limit` when it declares none. */
export function bodyCost(request: FastifyRequest, limit: number): number {
  const header = request.headers['content-length'];
  if (header === undefined) return request.headers['transfer-encoding'] === undefined ? 0 : limit;
  const declared = Number(header);
  // Past the limit the body is refused with 413 without being buffered, so it costs nothing.
  return Number.isSafeInteger(declared) && declared >= 0 && declared <= limit ? declared : 0;
}

/** Bodies at most this long are left for node to read and drop, so the connection can be kept. */
const DRAINED_BODY_BYTES = 64 * 1024;
/** How long a refused connection is kept, unread, so the client can read the answer before it is closed. */
const LINGER_MS = 2000;

function hasLargeBody(request: FastifyRequest): boolean {
  const header = request.headers['content-length'];
  if (header === undefined) return request.headers['transfer-encoding'] !== undefined;
  return !(Number(header) <= DRAINED_BODY_BYTES);
}

/**
 * For an answer given without reading the body: a long or unmeasured body is not worth reading just to
 * keep the connection, so the connection is closed once the answer is out. Not at once, though:
 * closing a socket with unread bytes makes the kernel send a reset, which can destroy the answer before
 * the client has read it. So the service says it is done (FIN), stops reading (what the client still
 * sends waits in kernel buffers, costing the process nothing), and closes after `LINGER_MS`.
 * `Connection: close` is not sent: node would then close at once.
 */
export function closeIfBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (!hasLargeBody(request)) return;
  reply.raw.once('finish', () => lingerThenClose(request.raw.socket));
}

function lingerThenClose(socket: Socket): void {
  socket.end();
  // On 'finish' node starts dropping the unread body and, a tick later, resumes reading the socket for
  // it: pausing after that keeps the socket unread. Were it read anyway, it would only cost garbage.
  setImmediate(() => socket.pause());
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(timer));
}
