import type { FastifyInstance } from 'fastify';
import type { SessionResolver } from './credentials.js';

/** Sends the cookies a request's session check implied (a re-issued or cleared session cookie) with its response. */
export function forwardSessionCookies(app: FastifyInstance, sessions: SessionResolver): void {
  const cookiesFor = sessions.cookiesFor?.bind(sessions);
  if (cookiesFor === undefined) return;
  app.addHook('onSend', async (request, reply, payload) => {
    const cookies = cookiesFor(request);
    if (cookies.length > 0) void reply.header('set-cookie', cookies);
    return payload;
  });
}
