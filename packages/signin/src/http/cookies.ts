// The cookie rules live in the domain (the session check reads and issues cookies too); routes import them here.
export { readCookie, serializeClearedCookie, serializeSessionCookie, sessionCookieName, type CookieOptions } from '../domain/rules/cookies.js';
