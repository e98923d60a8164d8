import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';

export interface ServerTimeouts {
  /** Longest an ordinary request may take to arrive: its headers, then (enforced per route) its body. */
  requestTimeoutMs: number;
}

/** Idle keep-alive connections are kept a little longer than the 60 s of common proxies in front. */
const KEEP_ALIVE_MS = 72_000;
/** A socket may be silent this long at least: above the pipeline's longest claim long poll (60 s). */
const IDLE_FLOOR_MS = 90_000;

/**
 * The Node server's timeouts, one definition for both services, for each on its own and for a
 * server that mounts several (the CLI's one origin), so all of them are bound the same way.
 *
 * Node's own `requestTimeout` counts the time to receive the whole request and cannot be lifted for
 * one route, so it would cut a large artifact upload arriving at full speed. It is therefore off at
 * the Node level, and each service's plugin enforces the same limit on its routes (see
 * `guardSlowBodies`): a deadline for ordinary bodies, a minimum rate for streamed uploads. Headers are
 * bound here, before any route is known.
 */
export function timeoutServerOptions(timeouts: ServerTimeouts): FastifyHttpOptions<Server> {
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
