import { createHash, randomBytes } from 'node:crypto';

/** A session token: 32 random bytes, base64url. Only its digest is ever stored. */
export function createSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The session id for a token: its SHA-256 as lower-case hex. */
export function deriveSessionId(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
