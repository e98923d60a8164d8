import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { SigninDeps } from './domain/deps.js';
import { handleError, handleNotFound, parseJsonBody, refuseNonJsonBody } from './http/errors.js';
import { registerLoginRoutes } from './http/login/routes.js';
import { registerOpenApiRoute } from './http/openapi/route.js';
import { serverOptions } from './http/server-options.js';
import { registerSessionRoutes } from './http/session/routes.js';
import { guardSlowBodies } from './http/slow-bodies.js';

export const BODY_LIMIT_BYTES = 64 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

export interface SigninPluginOptions {
  deps: SigninDeps;
  /** Longest a request body may take to arrive (AUTH_REQUEST_TIMEOUT); 60 s by default. */
  requestTimeoutMs?: number;
  /**
   * Answer unknown paths with `{"error": "not_found", ...}` (default true). A server mounting several
   * services lets exactly one of them do it: Fastify has one not-found handler per prefix.
   */
  handleNotFound?: boolean;
  /** Serve `GET /api/v1/openapi.json` (default true); a server mounting several services serves one document. */
  serveOpenApi?: boolean;
}

export interface AppOptions extends SigninPluginOptions {
  /** Fastify's logger; request logging stays off either way, so no cookie or body reaches a log. */
  logger?: boolean;
}

/**
 * The sign-in service as an encapsulated Fastify plugin: its JSON-only parsers, body limit, slow-body
 * guard and error handler apply to its routes only, so it can share a server with other services.
 * Register it with `app.register(signinPlugin, options)`, never through fastify-plugin.
 */
export async function signinPlugin(app: FastifyInstance, options: SigninPluginOptions): Promise<void> {
  app.removeAllContentTypeParsers();
  // The limit sits on the parsers, not the server, so it holds wherever this service is mounted.
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, parseJsonBody);
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT_BYTES }, refuseNonJsonBody);
  guardSlowBodies(app, options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS);
  app.setErrorHandler(handleError);
  if (options.handleNotFound ?? true) app.setNotFoundHandler(handleNotFound);
  registerLoginRoutes(app, options.deps);
  registerSessionRoutes(app, options.deps);
  if (options.serveOpenApi ?? true) registerOpenApiRoute(app);
}

/** Builds the HTTP app without listening (tests and main.ts listen themselves). */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    ...serverOptions({ requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS }),
    logger: options.logger ?? false,
    // No request logs at all: they would carry URLs and headers, and the hot path stays lean.
    logController: new LogController({ disableRequestLogging: true }),
  });
  const { logger: _logger, ...pluginOptions } = options;
  await app.register(signinPlugin, pluginOptions);
  await app.ready();
  return app;
}
