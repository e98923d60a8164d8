import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBody, errors } from '../errors.js';

export type ByteRange = { start: number; end: number } | 'unsatisfiable' | null;

/**
 * Reads a single `Range: bytes=a-b` (or `a-`, or `-n`) against a body of `size` bytes. Null means
 * "send it all" (no header, or a form we do not serve, such as several ranges).
 */
export function readRange(header: string | undefined, size: number): ByteRange {
  if (header === undefined) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (match === null) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return 'unsatisfiable';
    return size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/**
 * Streams the first `size` bytes of a blob (never the part past `size`), honouring a Range header;
 * `open` reads the inclusive byte range asked for.
 */
export function sendBlobBytes(
  request: FastifyRequest,
  reply: FastifyReply,
  size: number,
  open: (range: { start: number; end: number }) => Readable,
): FastifyReply {
  reply.header('accept-ranges', 'bytes');
  const range = readRange(request.headers.range, size);
  if (range === 'unsatisfiable') {
    return reply
      .code(416)
      .header('content-range', `bytes */${size}`)
      .type('application/json; charset=utf-8')
      .send(errorBody(errors.rangeNotSatisfiable()));
  }
  if (size === 0) return reply.header('content-length', 0).send(Buffer.alloc(0));
  const { start, end } = range ?? { start: 0, end: size - 1 };
  if (range !== null) reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
  reply.header('content-length', end - start + 1);
  return reply.send(open({ start, end }));
}
