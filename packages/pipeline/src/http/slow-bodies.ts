import type { FastifyInstance } from 'fastify';
import { installSlowBodyGuard } from '@conveyor/kit/http';
import { errorBody, errors } from '../errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The handler streams the body and it may be large: bound by a minimum rate, not a deadline. */
    streamedBody?: boolean;
  }
}

export interface BodyLimits {
  /** An ordinary body must have arrived this long after its headers. */
  requestTimeoutMs: number;
  /** A streamed body must bring at least this many bytes per second, measured over windows of requestTimeoutMs. */
  uploadMinBytesPerSecond: number;
}

/**
 * Bounds how long a request body may take on every route of this plugin (kit's guard): a deadline
 * for ordinary bodies, a minimum rate on routes marked `streamedBody` (artifact uploads).
 */
export function guardSlowBodies(app: FastifyInstance, limits: BodyLimits): void {
  installSlowBodyGuard(app, {
    requestTimeoutMs: limits.requestTimeoutMs,
    tooSlowBody: errorBody(errors.bodyTooSlow()),
    streamed: {
      isStreamed: (request) => request.routeOptions.config.streamedBody === true,
      minBytesPerSecond: limits.uploadMinBytesPerSecond,
    },
  });
}
