import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { openPipeline, pipelinePlugin, pipelineServerOptions, recoverPipeline, startSweeps, systemClock, type Clock, type PipelineDeps } from '@conveyor/pipeline';
import { createSigninService, signinOpenApiDocument, type SigninDeps } from '@conveyor/signin';
import { signinPlugin } from '@conveyor/signin/plugin';
import { createInProcessSessions } from '../sessions/in-process.js';
import type { ServeConfig } from './config.js';
import { registerWebApp } from './web.js';

/** Where the sign-in service's OpenAPI document is served on the combined server (the pipeline's keeps `/api/v1/openapi.json`). */
export const SIGNIN_OPENAPI_PATH = '/api/v1/signin/openapi.json';

export interface CombinedServer {
  app: FastifyInstance;
  /** e.g. `http://127.0.0.1:3000` */
  url: string;
  pipeline: PipelineDeps;
  signin: SigninDeps;
  /** Stops accepting, lets in-flight requests finish, then closes both databases. */
  stop(): Promise<void>;
}


/**
 * `conveyor serve`: the pipeline and sign-in services as plugins on one Fastify server (one origin), the
 * pipeline reading the sign-in service's sessions in-process. The pipeline answers unknown paths and
 * serves its OpenAPI document at `/api/v1/openapi.json`; the sign-in service's is at SIGNIN_OPENAPI_PATH.
 * Start-up recovery and the background sweeps are the pipeline service's own (recoverPipeline, startSweeps).
 */
export async function startCombinedServer(
  config: ServeConfig,
  options: { clock?: Clock; logStream?: { write(line: string): void } } = {},
): Promise<CombinedServer> {
  const clock = options.clock ?? systemClock;
  const pipeline = openPipeline(config.pipeline, clock);
  const signin = await createSigninService(config.signin, { clock, requestTimeoutMs: config.signin.requestTimeoutMs }).catch(async (error: unknown) => {
    await pipeline.store.close();
    throw error;
  });
  const sessions = createInProcessSessions(signin.deps, { clock });
  const shutdown = new AbortController();
  let app: FastifyInstance | null = null;
  try {
    await recoverPipeline(pipeline);
    app = Fastify({
      ...pipelineServerOptions({ requestTimeoutMs: config.pipeline.requestTimeoutMs }),
      logController: new LogController({ disableRequestLogging: true }),
      logger: { level: config.pipeline.logLevel, ...(options.logStream === undefined ? {} : { stream: options.logStream }) },
    });
    await app.register(pipelinePlugin, { deps: pipeline, sessions, shutdown: shutdown.signal });
    await app.register(signinPlugin, { deps: signin.deps, requestTimeoutMs: config.signin.requestTimeoutMs, handleNotFound: false, serveOpenApi: false });
    const signinDocument = JSON.stringify(signinOpenApiDocument);
    app.get(SIGNIN_OPENAPI_PATH, async (_request, reply) => reply.type('application/json; charset=utf-8').send(signinDocument));
    await registerWebApp(app);
    await app.ready();
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app?.close();
    sessions.close();
    await signin.close();
    await pipeline.store.close();
    throw error;
  }
  const running = app;
  const sweeps = startSweeps(pipeline, running.log);
  const address = running.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let stopping: Promise<void> | null = null;
  return {
    app: running,
    url: `http://${host}:${port}`,
    pipeline,
    signin: signin.deps,
    stop() {
      stopping ??= (async () => {
        await sweeps.stop();
        shutdown.abort();
        await running.close();
        sessions.close();
        await signin.close();
        await pipeline.store.close();
      })();
      return stopping;
    },
  };
}
