import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  ARTIFACT_PATH_HEADER,
  ClaimRequestSchema,
  CompleteRequestSchema,
  LOG_OFFSET_HEADER,
  parseWith,
} from '@conveyor/protocol';
import { receiveArtifact } from '../../domain/artifacts.js';
import { appendLog } from '../../domain/logs.js';
import { authenticateWorker } from '../../domain/worker-auth.js';
import { claimTask, completeTask, heartbeat, MAX_CLAIM_WAIT_SECONDS, openTaskSource, requireHeldTask } from '../../domain/worker-protocol.js';
import { errors, ServiceError } from '../../errors.js';
import type { Worker } from '../../store/types.js';
import { baseUrlOf } from '../base-url.js';
import { parseJsonBody, rawBody } from '../body.js';
import type { HttpContext } from '../context.js';
import { bearerToken } from '../credentials.js';
import { artifactUrl, presentArtifact } from '../present.js';

/** Largest log chunk one append may carry; workers send 64 KiB. */
const LOG_CHUNK_LIMIT = 8 * 1024 * 1024;

type TaskParams = { task: string };

declare module 'fastify' {
  interface FastifyRequest {
    worker?: Worker;
  }
}

function requireWorker(request: FastifyRequest): Worker {
  if (request.worker === undefined) throw errors.workerTokenInvalid();
  return request.worker;
}

function parseWait(value: unknown): number {
  if (value === undefined) return 0;
  if (typeof value !== 'string' || !/^\d{1,5}$/.test(value)) throw errors.invalidRequest('wait must be a whole number of seconds');
  return Math.min(Number(value), MAX_CLAIM_WAIT_SECONDS);
}

/**
 * The signal a long poll waits on: the server's shutdown, or the response closing (the client went
 * away). Listeners are removed when the response closes, so nothing stays attached to the long-lived
 * shutdown signal (AbortSignal.any would keep every dependent signal on Node 20). A claim that does not
 * wait needs no listener at all.
 */
function abortSignalFor(context: HttpContext, reply: FastifyReply, waitSeconds: number): AbortSignal {
  if (waitSeconds === 0) return context.shutdown;
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  context.shutdown.addEventListener('abort', abort, { once: true });
  reply.raw.once('close', () => {
    context.shutdown.removeEventListener('abort', abort);
    abort();
  });
  return controller.signal;
}

export function registerWorkerRoutes(app: FastifyInstance, context: HttpContext): void {
  const { deps } = context;

  app.register(async (scope) => {
    // Every worker route authenticates first: the token requirement must never lapse below /tasks/:task.
    scope.addHook('onRequest', async (request) => {
      request.worker = await authenticateWorker(deps, bearerToken(request));
    });

    scope.post<{ Querystring: { wait?: string } }>('/api/v1/tasks/claim', async (request, reply) => {
      const worker = requireWorker(request);
      const parsed = parseWith(ClaimRequestSchema, parseJsonBody(request));
      if (!parsed.ok) throw errors.invalidRequest(parsed.message);
      if (parsed.value.name !== worker.name) {
        // The claim's name is only the worker's own word; the task records the registered name.
        request.log.debug({ worker: worker.name, claimed: parsed.value.name }, 'claim names another worker name; the registered one is recorded');
      }
      const waitSeconds = parseWait(request.query.wait);
      const task = await claimTask(deps, worker, parsed.value, {
        waitSeconds,
        baseUrl: baseUrlOf(request, deps.config.publicUrl),
        abort: abortSignalFor(context, reply, waitSeconds),
      });
      if (task === null) return reply.code(204).send();
      request.log.info({ task: task.id, name: task.name, attempt: task.attempt, worker: worker.name }, 'task claimed');
      return { task };
    });

    scope.get<{ Params: TaskParams }>('/api/v1/tasks/:task/source.tar.gz', async (request, reply) => {
      const source = await openTaskSource(deps, requireWorker(request), request.params.task);
      reply.type('application/gzip').header('content-disposition', 'attachment; filename="source.tar.gz"');
      return reply.send(source);
    });

    scope.post<{ Params: TaskParams }>('/api/v1/tasks/:task/log', { bodyLimit: LOG_CHUNK_LIMIT }, async (request) => {
      const worker = requireWorker(request);
      const header = request.headers[LOG_OFFSET_HEADER];
      if (typeof header !== 'string' || !/^\d{1,15}$/.test(header)) {
        throw errors.invalidRequest('X-Log-Offset must be the byte offset where this chunk starts');
      }
      const offset = await appendLog(deps, context.logLocks, worker, request.params.task, Number(header), rawBody(request));
      return { offset };
    });

    scope.post<{ Params: TaskParams }>('/api/v1/tasks/:task/heartbeat', async (request) => {
      return heartbeat(deps, requireWorker(request), request.params.task);
    });

    scope.post<{ Params: TaskParams }>('/api/v1/tasks/:task/complete', async (request) => {
      const worker = requireWorker(request);
      // 404 for a task the worker does not hold comes before anything about the body.
      await requireHeldTask(deps, worker, request.params.task);
      const parsed = parseWith(CompleteRequestSchema, parseJsonBody(request));
      if (!parsed.ok) throw errors.invalidRequest(parsed.message);
      const task = await completeTask(deps, worker, request.params.task, parsed.value);
      request.log.info({ task: task.id, name: task.name, state: task.state, attempt: task.attempt }, 'task completed');
      return { state: task.state, attempt: task.attempt };
    });

    scope.register(async (streaming) => {
      // Artifact bodies are streamed to disk as they arrive, never parsed or buffered.
      streaming.removeAllContentTypeParsers();
      streaming.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
      // A large file takes as long as the network needs: bound by a minimum rate, not the request timeout.
      const routeOptions = { config: { streamedBody: true } };
      streaming.post<{ Params: TaskParams }>('/api/v1/tasks/:task/artifacts', routeOptions, async (request, reply) => {
        const worker = requireWorker(request);
        await requireHeldTask(deps, worker, request.params.task);
        const length = request.headers['content-length'];
        if (length === undefined || !/^\d{1,15}$/.test(length)) throw errors.lengthRequired();
        // Before the body: a Host that cannot make the artifact's url must refuse the upload, not follow it.
        const base = baseUrlOf(request, deps.config.publicUrl);
        const rawPath = request.headers[ARTIFACT_PATH_HEADER];
        const socket = request.raw.socket;
        const { artifact, job, project } = await receiveArtifact(deps, worker, request.params.task, {
          rawPath: typeof rawPath === 'string' ? rawPath : undefined,
          declaredLength: Number(length),
          body: request.raw,
          isConnectionIntact: () => !socket.destroyed,
        }).catch((error: unknown) => {
          // Refused before a byte was read: close the connection rather than read a body that may be gigabytes.
          if (error instanceof ServiceError && error.status === 413) reply.header('connection', 'close');
          throw error;
        });
        const url = job === null || project === null ? '' : artifactUrl(base, project, job, artifact);
        request.log.info({ task: artifact.taskId, path: artifact.path, size: artifact.size }, 'artifact stored');
        return reply.code(201).send(presentArtifact(artifact, url));
      });
    });

    // Anything else below /tasks/:task is still worker territory: authenticated first, then 404.
    scope.all('/api/v1/tasks/:task/*', async () => {
      throw errors.notFound();
    });
  });
}
