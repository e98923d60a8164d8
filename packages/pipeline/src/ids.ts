import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * An opaque id: 136 random bits, base64url (23 characters). It encodes nothing about what it names.
 * It never starts with `-` or `_`, so it can be passed on a command line without being read as an
 * option; redrawing those keeps more than 135 bits of randomness.
 */
export function newId(): string {
  for (;;) {
    const id = randomBytes(17).toString('base64url');
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

/** A bearer secret for a worker: shown once, stored only as its SHA-256. */
export function newWorkerToken(): string {
  return `cvw_${randomBytes(32).toString('base64url')}`;
}

/** A project's trigger secret: the HMAC key, so it is stored as is (it must be usable to verify). */
export function newTriggerSecret(): string {
  return randomBytes(32).toString('hex');
}

export function sha256Hex(value: string | Buffer): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time string comparison that does not leak the length of the expected value through timing. */
export function safeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b) && given.length === expected.length;
}

/** An API token for scripts: recognisable by its prefix, shown once, stored only as its SHA-256. */
export const API_TOKEN_PREFIX = 'cvy_';

export function newApiToken(): string {
  return `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}
