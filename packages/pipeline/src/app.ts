import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { PipelineDeps } from './domain/deps.js';
import { TaskLocks } from './domain/logs.js';
import { noSessions, type SessionResolver } from './http/credentials.js';
import { keepRawBodies } from './http/body.js';
import { refuseCrossSiteChanges } from './http/csrf.js';
import { forwardSessionCookies } from './http/session-cookies.js';
import { installErrorHandler, installNotFoundHandler } from './http/error-handler.js';
import { registerOpenApiRoute } from './http/openapi/route.js';
import { registerManageJobRoutes } from './http/routes/manage-jobs.js';
import { registerManageProjectRoutes } from './http/routes/manage-projects.js';
import { registerManageWorkerRoutes } from './http/routes/manage-workers.js';
import { registerLiveRoutes } from './http/routes/live.js';
import { registerReadRoutes } from './http/routes/reads.js';
import { registerTriggerRoutes } from './http/routes/triggers.js';
import { registerWorkerRoutes } from './http/routes/worker.js';
import { serverOptions } from './http/server-options.js';
import { guardSlowBodies } from './http/slow-bodies.js';

export interface AppOptions {
  sessions?: SessionResolver;
  /** Aborted on shutdown so long-polling claims let go at once. */
  shutdown?: AbortSignal;
  logLevel?: string;
  /** Where log lines go instead of stdout (tests read what the service logged). */
  logStream?: { write(line: string): void };
}

export interface PipelinePluginOptions extends Omit<AppOptions, 'logLevel' | 'logStream'> {
  deps: PipelineDeps;
  /**
   * Answer unknown paths with `{"error": "not found"}` (default true). A server mounting several
   * services lets exactly one of them do it: Fastify has one not-found handler per prefix.
   */
  handleNotFound?: boolean;
  /** Serve `GET /api/v1/openapi.json` (default true); a server mounting several services serves one document. */
  serveOpenApi?: boolean;
}

/**
 * The pipeline service as an encapsulated Fastify plugin: its raw-body parsers, body limits, slow-body
 * guard and error handler apply to its routes only, so it can share a server with other services.
 * Register it with `app.register(pipelinePlugin, options)`, never through fastify-plugin.
 */
export async function pipelinePlugin(app: FastifyInstance, options: PipelinePluginOptions): Promise<void> {
  const { deps } = options;
  keepRawBodies(app);
  guardSlowBodies(app, { requestTimeoutMs: deps.config.requestTimeoutMs, uploadMinBytesPerSecond: deps.config.uploadMinBytesPerSecond });
  installErrorHandler(app);
  refuseCrossSiteChanges(app, deps.config.publicUrl);
  if (options.handleNotFound ?? true) installNotFoundHandler(app);
  const context = {
    deps,
    sessions: options.sessions ?? noSessions,
    logLocks: new TaskLocks(),
    shutdown: options.shutdown ?? new AbortController().signal,
  };
  forwardSessionCookies(app, context.sessions);
  registerTriggerRoutes(app, context);
  registerReadRoutes(app, context);
  registerLiveRoutes(app, context);
  registerWorkerRoutes(app, context);
  registerManageJobRoutes(app, context);
  registerManageProjectRoutes(app, context);
  registerManageWorkerRoutes(app, context);
  if (options.serveOpenApi ?? true) registerOpenApiRoute(app);
}

/** Builds the HTTP app without listening (tests call `listen` on port 0 themselves). */
export async function buildApp(deps: PipelineDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    ...serverOptions({ requestTimeoutMs: deps.config.requestTimeoutMs }),
    // Request lines carry no secrets, but one log line per claim poll is noise; domain events are logged instead.
    logController: new LogController({ disableRequestLogging: true }),
    logger: { level: options.logLevel ?? deps.config.logLevel, ...(options.logStream === undefined ? {} : { stream: options.logStream }) },
  });
  await app.register(pipelinePlugin, { deps, sessions: options.sessions, shutdown: options.shutdown });
  await app.ready();
  return app;
}
