import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '@conveyor/protocol';
import { cancelJob, createJob, type JobRequest } from '../../domain/jobs.js';
import { ServiceError } from '../../errors.js';
import type { Project } from '../../store/types.js';
import { hasValidPlainToken, hasValidSignature } from '../access.js';
import { parseJsonBody, rawBody } from '../body.js';
import { checkCancelBody } from '../cancel-body.js';
import type { HttpContext } from '../context.js';
import { presentJob, presentTaskSummary } from '../present.js';
import { readPushDelivery } from '../triggers/push-payload.js';

/** Push deliveries from hosted services can be large (GitHub caps them at 25 MB); ours are tiny. */
const TRIGGER_BODY_LIMIT = 25 * 1024 * 1024;

const JobCreationSchema = z.strictObject({
  sha: z.string({ error: 'sha is required' }).regex(/^[0-9a-f]{40}$/, 'sha must be a full 40-hex commit id'),
  ref: z.string().max(1024).optional(),
  base: z.string().max(1024).nullable().optional(),
  actor: z.string().max(256).optional(),
  trigger: z.string().min(1).max(64).optional(),
});

type Params = { project: string };

/** Unknown project 404, then a missing or wrong signature 401, then a disabled project 409. */
async function authorizeTrigger(context: HttpContext, request: FastifyRequest<{ Params: Params }>, allowPlainToken: boolean): Promise<Project> {
  const project = await context.deps.store.findProject(request.params.project);
  if (project === null) throw new ServiceError(404, 'not found');
  const signed =
    hasValidSignature(request, rawBody(request), project.triggerSecret) ||
    (allowPlainToken && hasValidPlainToken(request, project.triggerSecret));
  if (!signed) throw new ServiceError(401, 'signature missing or wrong');
  if (!project.enabled) throw new ServiceError(409, 'the project is disabled');
  return project;
}

async function startJob(context: HttpContext, project: Project, request: JobRequest, log: FastifyRequest['log']) {
  const { job, tasks } = await createJob(context.deps, project, request);
  log.info({ project: project.name, job: job.id, number: job.number, tasks, trigger: request.trigger }, 'job created');
  return { status: 'created', job_id: job.id, tasks };
}

export function registerTriggerRoutes(app: FastifyInstance, context: HttpContext): void {
  app.post<{ Params: Params }>('/api/v1/projects/:project/trigger', { bodyLimit: TRIGGER_BODY_LIMIT }, async (request) => {
    const project = await authorizeTrigger(context, request, true);
    const delivery = readPushDelivery(request.headers, parseJsonBody(request));
    if (delivery.kind === 'invalid') throw new ServiceError(400, delivery.message);
    if (delivery.kind === 'ignored') return { status: 'ignored', reason: delivery.reason };
    return startJob(
      context,
      project,
      { sha: delivery.sha, ref: delivery.ref, base: delivery.base === '' ? null : delivery.base, actor: delivery.actor, trigger: 'push' },
      request.log,
    );
  });

  app.post<{ Params: Params }>('/api/v1/projects/:project/jobs', async (request) => {
    const project = await authorizeTrigger(context, request, false);
    const parsed = parseWith(JobCreationSchema, parseJsonBody(request) ?? {});
    if (!parsed.ok) throw new ServiceError(400, parsed.message);
    const body = parsed.value;
    return startJob(
      context,
      project,
      { sha: body.sha, ref: body.ref ?? '', base: body.base ?? null, actor: body.actor ?? '', trigger: body.trigger ?? 'api' },
      request.log,
    );
  });

  app.post<{ Params: Params & { job: string } }>('/api/v1/projects/:project/jobs/:job/cancel', async (request) => {
    const project = await context.deps.store.findProject(request.params.project);
    if (project === null) throw new ServiceError(404, 'not found');
    if (!hasValidSignature(request, rawBody(request), project.triggerSecret)) throw new ServiceError(401, 'signature missing or wrong');
    const job = await context.deps.store.findJob(project.id, request.params.job);
    if (job === null) throw new ServiceError(404, 'not found');
    checkCancelBody(rawBody(request), job);
    const canceled = await cancelJob(context.deps, job);
    request.log.info({ project: project.name, job: job.id }, 'job canceled');
    return { job: presentJob(canceled, project), tasks: (await context.deps.store.listTasksOfJob(job.id)).map(presentTaskSummary) };
  });
}
