import type { FastifyInstance } from 'fastify';
import { installSlowBodyGuard } from '@conveyor/kit/http';
import { errorBody, requestTimeout } from '../errors.js';

/** Every body on this plugin's routes must have arrived `requestTimeoutMs` after its headers (kit's guard). */
export function guardSlowBodies(app: FastifyInstance, requestTimeoutMs: number): void {
  installSlowBodyGuard(app, { requestTimeoutMs, tooSlowBody: errorBody(requestTimeout()) });
}
