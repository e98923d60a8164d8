import { invalidRequest } from '../../errors.js';

// Normalisation rules of the spec, plus the validation this service adds where the spec is silent.
// Each `normalise*` is pure; each `parse*` normalises and refuses what cannot be stored.

const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]*$/;
const HOST_NAME_PATTERN = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/;
const IPV6_LITERAL_PATTERN = /^\[[0-9a-f:.]+\]$/;

/** Host rule of the spec: lower-case, one trailing dot removed. */
export function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}

/**
 * The realm key of a request's Host header: the port is dropped (`localhost:4000` -> `localhost`,
 * `[::1]:4000` -> `[::1]`), then the spec's host rule applies. Returns undefined for no header.
 */
export function extractHostFromHeader(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const value = header.trim().toLowerCase();
  if (value === '') return undefined;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end === -1 ? value : value.slice(0, end + 1);
  }
  return normaliseHost(value.replace(/:\d*$/, ''));
}

/** Domain rule of the spec: trim, lower-case, trailing dot removed. */
export function normaliseDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, '');
}

/** Email rule of the spec: trim, lower-case. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Username rule of the spec: trim, lower-case. */
export function normaliseUsername(username: string): string {
  return username.trim().toLowerCase();
}

/** The domain part of an email-like identifier, normalised as a domain (after the last `@`). */
export function extractEmailDomain(identifier: string): string {
  return normaliseDomain(identifier.slice(identifier.lastIndexOf('@') + 1));
}

/** Does the email's domain part match the (normalised) domain, trailing dot or not? */
export function emailHasDomain(normalizedEmail: string, domain: string): boolean {
  return normalizedEmail.includes('@') && extractEmailDomain(normalizedEmail) === domain;
}

/** Characters as people count them (code points), not UTF-16 units. */
export function countCharacters(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

export function parseSlug(slug: string): string {
  if (!SLUG_PATTERN.test(slug) || slug.length > 63) {
    throw invalidRequest(`slug '${slug}' must match ^[a-z0-9][a-z0-9-]*$ and be at most 63 characters`);
  }
  return slug;
}

export function parseHost(host: string): string {
  const normalised = normaliseHost(host);
  const valid =
    normalised.length <= 253 && (HOST_NAME_PATTERN.test(normalised) || IPV6_LITERAL_PATTERN.test(normalised));
  if (!valid) throw invalidRequest(`host '${host}' is not a host name or address (give it without a port)`);
  return normalised;
}

export function parseDomain(domain: string): string {
  const normalised = normaliseDomain(domain);
  if (normalised.includes('@')) throw invalidRequest(`domain '${domain}' must not contain '@'`);
  if (normalised.length > 253 || !HOST_NAME_PATTERN.test(normalised)) {
    throw invalidRequest(`domain '${domain}' is not a domain name`);
  }
  return normalised;
}

export function parseEmail(email: string): { email: string; normalised: string } {
  const trimmed = email.trim();
  const normalised = normaliseEmail(trimmed);
  if (!/^[^@\s]+@[^@\s]+$/.test(normalised) || normalised.length > 320) {
    throw invalidRequest(`email '${email}' must have the form name@domain`);
  }
  parseDomain(extractEmailDomain(normalised));
  return { email: trimmed, normalised };
}

/** Usernames may not contain `@`: an identifier with `@` is always an email (see resolution). */
export function parseUsername(username: string): { username: string; normalised: string } {
  const trimmed = username.trim();
  if (trimmed === '' || trimmed.length > 128 || /[@\s]/.test(trimmed) || /\p{Cc}/u.test(trimmed)) {
    throw invalidRequest(`username '${username}' must be 1 to 128 characters without '@', spaces or control characters`);
  }
  return { username: trimmed, normalised: normaliseUsername(trimmed) };
}

export function parseDisplayName(displayName: string): string {
  const trimmed = displayName.trim();
  if (trimmed === '' || trimmed.length > 200 || /\p{Cc}/u.test(trimmed)) {
    throw invalidRequest('display name must be 1 to 200 characters without control characters');
  }
  return trimmed;
}
