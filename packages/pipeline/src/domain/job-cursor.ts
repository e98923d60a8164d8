import { errors } from '../errors.js';

/**
 * The jobs list's cursor: opaque to callers, it carries the number of the last job shown (the next
 * page starts below it). Base64url of a small JSON object, so its form can change without breaking
 * anyone who treats it as opaque.
 */
export function encodeJobCursor(lastNumber: number): string {
  return Buffer.from(JSON.stringify({ below: lastNumber }), 'utf8').toString('base64url');
}

/** The number a cursor carries; 400 for anything this service did not hand out. */
export function decodeJobCursor(cursor: string): number {
  let value: unknown = null;
  if (/^[A-Za-z0-9_-]{1,64}$/.test(cursor)) {
    try {
      value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    } catch {
      value = null;
    }
  }
  const below = typeof value === 'object' && value !== null ? (value as { below?: unknown }).below : undefined;
  if (typeof below !== 'number' || !Number.isSafeInteger(below) || below < 1) {
    throw errors.invalidRequest('cursor is not one this service handed out; start again without it, then pass next_cursor');
  }
  return below;
}
