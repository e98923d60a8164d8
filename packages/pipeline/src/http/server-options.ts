import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import { timeoutServerOptions, type ServerTimeouts } from '@conveyor/kit/http';

/**
 * The shared server timeouts (see kit's `timeoutServerOptions`; a server mounting this service uses
 * them too) and this service's router settings.
 */
export function serverOptions(timeouts: ServerTimeouts): FastifyHttpOptions<Server> {
  return {
    ...timeoutServerOptions(timeouts),
    // Opaque ids are long; the default 100 is plenty, but be explicit about it.
    routerOptions: { maxParamLength: 200 },
  };
}
