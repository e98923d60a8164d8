// The answers of `git cat-file --batch-command` (default format), read from a byte stream:
//   info:     "<oid> <type> <size>\n"
//   contents: "<oid> <type> <size>\n<size bytes>\n"
//   either:   "<object> missing\n" or "<object> ambiguous\n"

export interface ObjectInfo {
  oid: string;
  type: string;
  size: number;
}

/** `content` is null when the object was larger than the caller's limit (its bytes were skipped). */
export type ObjectContent = ObjectInfo & { content: Buffer | null };

export type Reply = { kind: 'missing' } | { kind: 'info'; info: ObjectInfo } | { kind: 'contents'; content: ObjectContent };

interface Body {
  info: ObjectInfo;
  remaining: number;
  /** null: over the limit, the bytes are dropped as they arrive. */
  chunks: Buffer[] | null;
}

/** What the oldest pending request expects; a contents parser keeps its progress through a body here. */
export type ReplyParser = { kind: 'info' } | { kind: 'contents'; limit: number; body?: Body };

const HEADER = /^([0-9a-f]{40}|[0-9a-f]{64}) ([a-z]+) (\d+)$/;
/** The longest line we wait for: a "missing" line repeats the object name, a path of any length. */
const MAX_LINE = 64 * 1024;

export class ProtocolError extends Error {}

/**
 * Reads as much of one reply as `buffer` holds. `consumed` bytes are used up; `reply` is set once the
 * reply is complete. Throws a ProtocolError on output that does not fit the protocol.
 */
export function readReply(parser: ReplyParser, buffer: Buffer): { consumed: number; reply?: Reply } {
  if (parser.kind === 'contents' && parser.body !== undefined) return readBody(parser.body, buffer);
  const end = buffer.indexOf(0x0a);
  if (end === -1) {
    if (buffer.length > MAX_LINE) throw new ProtocolError(`git cat-file sent a line longer than ${MAX_LINE} bytes`);
    return { consumed: 0 };
  }
  const line = buffer.subarray(0, end).toString('utf8');
  const header = HEADER.exec(line);
  if (header === null) {
    if (line.endsWith(' missing') || line.endsWith(' ambiguous')) return { consumed: end + 1, reply: { kind: 'missing' } };
    throw new ProtocolError(`git cat-file sent an unexpected line: ${line.slice(0, 200)}`);
  }
  const info: ObjectInfo = { oid: header[1] as string, type: header[2] as string, size: Number(header[3]) };
  if (!Number.isSafeInteger(info.size)) throw new ProtocolError(`git cat-file sent an unusable size: ${line}`);
  if (parser.kind === 'info') return { consumed: end + 1, reply: { kind: 'info', info } };
  parser.body = { info, remaining: info.size, chunks: info.size <= parser.limit ? [] : null };
  const rest = readBody(parser.body, buffer.subarray(end + 1));
  return { consumed: end + 1 + rest.consumed, reply: rest.reply };
}

/** The content bytes, then the newline git writes after them. */
function readBody(body: Body, buffer: Buffer): { consumed: number; reply?: Reply } {
  const taken = Math.min(body.remaining, buffer.length);
  if (taken > 0) {
    body.chunks?.push(buffer.subarray(0, taken));
    body.remaining -= taken;
  }
  if (body.remaining > 0 || buffer.length === taken) return { consumed: taken };
  if (buffer[taken] !== 0x0a) throw new ProtocolError(`git cat-file sent no newline after the ${body.info.size} bytes of ${body.info.oid}`);
  const content = body.chunks === null ? null : Buffer.concat(body.chunks);
  return { consumed: taken + 1, reply: { kind: 'contents', content: { ...body.info, content } } };
}
