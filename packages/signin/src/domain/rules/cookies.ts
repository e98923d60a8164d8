/** The session cookie's name for a realm: `auth_session_<realm_slug>`. */
export function sessionCookieName(realmSlug: string): string {
  return `auth_session_${realmSlug}`;
}

/**
 * The value of one cookie from a Cookie header, or undefined. Only the named cookie is looked at,
 * so another realm's cookie is never read for this realm.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
}

/** A Set-Cookie value with the spec's attributes: HttpOnly, SameSite=Lax, Path=/, Max-Age, Secure when TLS. */
export function serializeSessionCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Max-Age=${options.maxAgeSeconds}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  return parts.join('; ');
}

/** Clearing: an empty value with Max-Age=0 and the same attributes. */
export function serializeClearedCookie(name: string, secure: boolean): string {
  return serializeSessionCookie(name, '', { maxAgeSeconds: 0, secure });
}
