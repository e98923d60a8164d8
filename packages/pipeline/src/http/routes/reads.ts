import type { FastifyInstance, FastifyRequest } from 'fastify';
import { openArtifactDownload, openLog, readJob, readTask, type JobRef, type TaskRead, type TaskRef } from '../../domain/reads.js';
import { errors } from '../../errors.js';
import { baseUrlOf } from '../base-url.js';
import type { HttpContext } from '../context.js';
import { readCredentials } from '../credentials.js';
import { artifactUrl, presentArtifact, presentJob, presentTask, presentTaskSummary } from '../present.js';
import { sendBlobBytes } from '../ranges.js';
import { wantsEventStream } from '../sse.js';
import { streamLog } from './live.js';

type AttemptQuery = { attempt?: string };

function parseAttempt(value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !/^[1-9]\d{0,4}$/.test(value)) throw errors.invalidRequest('attempt must be a positive integer');
  return Number(value);
}

function presentTaskRead(request: FastifyRequest, context: HttpContext, { project, job, task, artifacts }: TaskRead) {
  const base = baseUrlOf(request, context.deps.config.publicUrl);
  return {
    task: presentTask(task, job, project),
    artifacts: artifacts.map((artifact) => presentArtifact(artifact, artifactUrl(base, project, job, artifact))),
  };
}

/** Always an attachment: an uploaded HTML file must never render in the service's origin. */
function contentDisposition(path: string): string {
  const name = path.split('/').at(-1) ?? 'artifact';
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function registerReadRoutes(app: FastifyInstance, context: HttpContext): void {
  const { deps, sessions } = context;

  app.get<{ Params: JobRef }>('/api/v1/projects/:project/jobs/:job', async (request) => {
    const { project, job, tasks, waitingReasons } = await readJob(deps, readCredentials(request, sessions), request.params);
    return { job: presentJob(job, project), tasks: tasks.map((task) => presentTaskSummary(task, waitingReasons)) };
  });

  app.get<{ Params: { task: string }; Querystring: AttemptQuery }>('/api/v1/tasks/:task', async (request) => {
    const attempt = parseAttempt(request.query.attempt);
    return presentTaskRead(request, context, await readTask(deps, readCredentials(request, sessions), request.params, attempt));
  });

  app.get<{ Params: { project: string; task: string }; Querystring: AttemptQuery }>('/api/v1/projects/:project/tasks/:task', async (request) => {
    const attempt = parseAttempt(request.query.attempt);
    return presentTaskRead(request, context, await readTask(deps, readCredentials(request, sessions), request.params, attempt));
  });

  app.get<{ Params: TaskRef; Querystring: AttemptQuery & { offset?: string } }>('/api/v1/projects/:project/jobs/:job/tasks/:task/log', async (request, reply) => {
    const attempt = parseAttempt(request.query.attempt);
    if (wantsEventStream(request)) return streamLog(request, reply, context, attempt);
    const log = await openLog(deps, readCredentials(request, sessions), request.params, attempt);
    reply.type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff');
    return sendBlobBytes(request, reply, log.size, log.read);
  });

  app.get<{ Params: TaskRef & { artifact: string } }>('/api/v1/projects/:project/jobs/:job/tasks/:task/artifacts/:artifact', async (request, reply) => {
    const { artifact, size, read } = await openArtifactDownload(deps, readCredentials(request, sessions), request.params);
    const etag = `"${artifact.sha256}"`;
    reply
      .header('etag', etag)
      .header('content-type', 'application/octet-stream')
      .header('x-content-type-options', 'nosniff')
      .header('content-disposition', contentDisposition(artifact.path));
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return sendBlobBytes(request, reply, size, read);
  });
}
