/**
 * HTTP parts both services would otherwise copy: the Node server's timeouts and the slow-body guard.
 * Only types come from fastify (a peer dependency), so `@conveyor/kit` itself stays free of it.
 */
export { timeoutServerOptions, type ServerTimeouts } from './server-options.js';
export { installSlowBodyGuard, type SlowBodyGuard } from './slow-bodies.js';
