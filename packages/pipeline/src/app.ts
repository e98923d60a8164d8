import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { PipelineDeps } from './domain/deps.js';
import { TaskLocks } from './domain/logs.js';
import { noSessions, type SessionResolver } from './http/access.js';
import { JSON_BODY_LIMIT, keepRawBodies } from './http/body.js';
import { installErrorHandler } from './http/error-handler.js';
import { registerReadRoutes } from './http/routes/reads.js';
import { registerTriggerRoutes } from './http/routes/triggers.js';
import { registerWorkerRoutes } from './http/routes/worker.js';

export interface AppOptions {
  sessions?: SessionResolver;
  /** Aborted on shutdown so long-polling claims let go at once. */
  shutdown?: AbortSignal;
  logLevel?: string;
  /** Where log lines go instead of stdout (tests read what the service logged). */
  logStream?: { write(line: string): void };
}

/** Builds the HTTP app without listening (tests call `listen` on port 0 themselves). */
export async function buildApp(deps: PipelineDeps, options: AppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    bodyLimit: JSON_BODY_LIMIT,
    // Request lines carry no secrets, but one log line per claim poll is noise; domain events are logged instead.
    logController: new LogController({ disableRequestLogging: true }),
    logger: { level: options.logLevel ?? deps.config.logLevel, ...(options.logStream === undefined ? {} : { stream: options.logStream }) },
    // Opaque ids are long; the default 100 is plenty, but be explicit about it.
    routerOptions: { maxParamLength: 200 },
  });
  keepRawBodies(app);
  installErrorHandler(app);
  const context = {
    deps,
    sessions: options.sessions ?? noSessions,
    logLocks: new TaskLocks(),
    shutdown: options.shutdown ?? new AbortController().signal,
  };
  registerTriggerRoutes(app, context);
  registerReadRoutes(app, context);
  registerWorkerRoutes(app, context);
  await app.ready();
  return app;
}
