import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { SigninDeps } from './domain/deps.js';
import { handleError, handleNotFound, parseJsonBody, refuseNonJsonBody } from './http/errors.js';
import { registerLoginRoutes } from './http/login/routes.js';
import { registerSessionRoutes } from './http/session/routes.js';

export const BODY_LIMIT_BYTES = 64 * 1024;

export interface AppOptions {
  deps: SigninDeps;
  /** Fastify's logger; request logging stays off either way, so no cookie or body reaches a log. */
  logger?: boolean;
}

/** Builds the HTTP app without listening (tests and main.ts listen themselves). */
export function buildApp(options: AppOptions): FastifyInstance {
  const app = Fastify({
    logger: options.logger ?? false,
    // No request logs at all: they would carry URLs and headers, and the hot path stays lean.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    return503OnClosing: true,
  });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  app.addContentTypeParser('*', { parseAs: 'string' }, refuseNonJsonBody);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  registerLoginRoutes(app, options.deps);
  registerSessionRoutes(app, options.deps);
  return app;
}
