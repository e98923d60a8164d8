import type { FastifyInstance, FastifyRequest } from 'fastify';
import { artifactKey, chooseArtifactAttempt, isArtifactLive, listLiveArtifacts } from '../../domain/artifacts.js';
import { chooseLogAttempt, logKey } from '../../domain/logs.js';
import { ServiceError } from '../../errors.js';
import type { Job, Project, Task } from '../../store/types.js';
import { identifyReader, mayDownloadArtifact, mayReadBareTask, mayReadJob, type Reader } from '../access.js';
import { baseUrlOf } from '../base-url.js';
import type { HttpContext } from '../context.js';
import { artifactUrl, presentArtifact, presentJob, presentTask, presentTaskSummary } from '../present.js';
import { sendBlobBytes } from '../ranges.js';

const hidden = (): ServiceError => new ServiceError(404, 'not found');

type JobParams = { project: string; job: string };
type TaskParams = JobParams & { task: string };
type AttemptQuery = { attempt?: string };

/** Resolves project, job and task from the path; all must agree, and the reader must be allowed. */
async function loadJobForReader(context: HttpContext, request: FastifyRequest<{ Params: JobParams }>, allowed: (reader: Reader, project: Project) => boolean) {
  const { store } = context.deps;
  const project = await store.findProject(request.params.project);
  if (project === null) throw hidden();
  const reader = await identifyReader(request, project, context.sessions);
  if (!allowed(reader, project)) throw hidden();
  const job = await store.findJob(project.id, request.params.job);
  if (job === null) throw hidden();
  return { project, job };
}

async function loadTaskOfJob(context: HttpContext, job: Job, taskId: string): Promise<Task> {
  const task = await context.deps.store.getTask(taskId);
  if (task === null || task.jobId !== job.id) throw hidden();
  return task;
}

/** The task with one attempt's artifacts: the current attempt's, or `?attempt=N`'s (404 for one that never was). */
async function presentTaskRead(context: HttpContext, request: FastifyRequest<{ Querystring: AttemptQuery }>, task: Task, job: Job, project: Project) {
  const attempt = chooseArtifactAttempt(task, parseAttempt(request.query.attempt));
  if (attempt === null) throw hidden();
  const base = baseUrlOf(request, context.deps.config.publicUrl);
  const artifacts = (await listLiveArtifacts(context.deps, task, attempt)).map((artifact) => presentArtifact(artifact, artifactUrl(base, project, job, artifact)));
  return { task: presentTask(task, job, project), artifacts };
}

function parseAttempt(value: unknown): number | null {
  if (value === undefined) return null;
  if (typeof value !== 'string' || !/^[1-9]\d{0,4}$/.test(value)) throw new ServiceError(400, 'attempt must be a positive integer');
  return Number(value);
}

export function registerReadRoutes(app: FastifyInstance, context: HttpContext): void {
  const { store } = context.deps;

  app.get<{ Params: JobParams }>('/api/v1/projects/:project/jobs/:job', async (request) => {
    const { project, job } = await loadJobForReader(context, request, mayReadJob);
    return { job: presentJob(job, project), tasks: (await store.listTasksOfJob(job.id)).map(presentTaskSummary) };
  });

  app.get<{ Params: { task: string }; Querystring: AttemptQuery }>('/api/v1/tasks/:task', async (request) => {
    const task = await store.getTask(request.params.task);
    const project = task === null ? null : await store.findProject(task.projectId);
    const job = task === null ? null : await store.getJobById(task.jobId);
    if (task === null || project === null || job === null) throw hidden();
    if (!mayReadBareTask(await identifyReader(request, null, context.sessions), project)) throw hidden();
    return presentTaskRead(context, request, task, job, project);
  });

  app.get<{ Params: { project: string; task: string }; Querystring: AttemptQuery }>('/api/v1/projects/:project/tasks/:task', async (request) => {
    const project = await store.findProject(request.params.project);
    if (project === null) throw hidden();
    const task = await store.getTask(request.params.task);
    // The task must belong to the named project, or a guessed id could be read through a readable one.
    if (task === null || task.projectId !== project.id) throw hidden();
    if (!mayReadJob(await identifyReader(request, project, context.sessions), project)) throw hidden();
    const job = await store.getJobById(task.jobId);
    if (job === null) throw hidden();
    return presentTaskRead(context, request, task, job, project);
  });

  app.get<{ Params: TaskParams; Querystring: AttemptQuery }>(
    '/api/v1/projects/:project/jobs/:job/tasks/:task/log',
    async (request, reply) => {
      const { job } = await loadJobForReader(context, request, mayReadJob);
      const task = await loadTaskOfJob(context, job, request.params.task);
      const chosen = chooseLogAttempt(task, parseAttempt(request.query.attempt));
      if (chosen === null) throw hidden();
      const key = logKey(task.id, chosen.attempt);
      const size = chosen.size >= 0 ? chosen.size : ((await context.deps.blobs.size(key)) ?? 0);
      reply.type('text/plain; charset=utf-8').header('x-content-type-options', 'nosniff');
      return sendBlobBytes(request, reply, size, (range) => context.deps.blobs.read(key, range));
    },
  );

  app.get<{ Params: TaskParams & { artifact: string } }>(
    '/api/v1/projects/:project/jobs/:job/tasks/:task/artifacts/:artifact',
    async (request, reply) => {
      // Visibility is checked here every time, whatever URL the caller was handed.
      const { job } = await loadJobForReader(context, request, (reader, project) => mayDownloadArtifact(reader, project));
      const task = await loadTaskOfJob(context, job, request.params.task);
      const artifact = await store.getArtifact(request.params.artifact);
      // An expired artifact is gone as soon as it expires, whether or not the sweep has removed it yet.
      if (artifact === null || artifact.taskId !== task.id || !isArtifactLive(artifact, context.deps.clock.now())) throw hidden();
      const etag = `"${artifact.sha256}"`;
      reply
        .header('etag', etag)
        .header('content-type', 'application/octet-stream')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', contentDisposition(artifact.path));
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return sendBlobBytes(request, reply, artifact.size, (range) => context.deps.blobs.read(artifactKey(artifact.id), range));
    },
  );
}

/** Always an attachment: an uploaded HTML file must never render in the service's origin. */
function contentDisposition(path: string): string {
  const name = path.split('/').at(-1) ?? 'artifact';
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
