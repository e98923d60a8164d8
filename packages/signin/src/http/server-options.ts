import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';

/** Idle keep-alive connections are kept a little longer than the 60 s of common proxies in front. */
const KEEP_ALIVE_MS = 72_000;
/** A socket silent this long is closed (at least; twice the request timeout when that is longer). */
const IDLE_FLOOR_MS = 90_000;

/**
 * The Node server's timeouts, the same as the pipeline service's, so a server mounting both services
 * binds them alike. Node's own request timeout is off because it cannot be lifted for one route (the
 * pipeline's artifact uploads may be large); bodies are bound per route by each service's plugin
 * (`guardSlowBodies`), headers here.
 */
export function serverOptions(timeouts: { requestTimeoutMs: number }): FastifyHttpOptions<Server> {
  const { requestTimeoutMs } = timeouts;
  return {
    connectionTimeout: Math.max(IDLE_FLOOR_MS, 2 * requestTimeoutMs),
    keepAliveTimeout: KEEP_ALIVE_MS,
    requestTimeout: 0,
    http: {
      headersTimeout: requestTimeoutMs,
      requestTimeout: 0,
      // Node looks for expired requests this often (30 s by default, which would let a 60 s limit run to 90 s).
      connectionsCheckingInterval: Math.min(5000, Math.max(100, Math.floor(requestTimeoutMs / 10))),
    },
    return503OnClosing: true,
  };
}
