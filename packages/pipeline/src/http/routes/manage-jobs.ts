import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { JOB_STATES, parseWith, TASK_STATES } from '@conveyor/protocol';
import { listProjectJobs, rerunFailedTasksAs, rerunJobAs, startJobAs, stopJobAs, type StartTarget } from '../../domain/manage-jobs.js';
import type { JobRef } from '../../domain/reads.js';
import { errors } from '../../errors.js';
import type { JobListing } from '../../store/types.js';
import { parseJsonBody } from '../body.js';
import type { HttpContext } from '../context.js';
import { presentJob, presentTaskSummary } from '../present.js';
import { requireViewer } from '../viewer.js';

export const DEFAULT_JOBS_LIMIT = 25;
export const MAX_JOBS_LIMIT = 100;

const REF = z.string().min(1, 'ref must not be empty').max(1024);
const SHA = z.string().regex(/^[0-9a-f]{40}$/, 'sha must be a full 40-hex commit id');

const JobsQuerySchema = z.strictObject({
  ref: REF.optional(),
  state: z.enum(JOB_STATES, { error: `state must be one of ${JOB_STATES.join(', ')}` }).optional(),
  trigger: z.string().min(1).max(64).optional(),
  cursor: z.string().min(1).max(256).optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, `limit must be a whole number from 1 to ${MAX_JOBS_LIMIT}`)
    .transform(Number)
    .refine((limit) => limit >= 1 && limit <= MAX_JOBS_LIMIT, `limit must be from 1 to ${MAX_JOBS_LIMIT}`)
    .optional(),
});

const StartSchema = z.union([z.strictObject({ ref: REF }), z.strictObject({ sha: SHA, ref: REF.optional() })], {
  error: 'send {"ref": "<branch or tag>"} or {"sha": "<40-hex commit id>", "ref": "<optional ref>"}',
});

/** The calls on an existing job carry no parameters: an empty body or `{}`. */
const NoParameters = z.strictObject({});

function parseBody<T>(schema: z.ZodType<T>, request: FastifyRequest): T {
  const parsed = parseWith(schema, parseJsonBody(request) ?? {});
  if (!parsed.ok) throw errors.invalidRequest(parsed.message);
  return parsed.value;
}

function presentListing({ job, startedAt, taskCounts }: JobListing) {
  return {
    id: job.id,
    number: job.number,
    state: job.state,
    ref: job.ref,
    head_sha: job.headSha,
    commit_message: job.commitMessage,
    actor: job.actor,
    trigger: job.trigger,
    created_at: job.createdAt,
    started_at: startedAt,
    finished_at: job.finishedAt,
    task_counts: Object.fromEntries(TASK_STATES.map((state) => [state, taskCounts[state] ?? 0])),
  };
}

type ProjectParams = { project: string };

/** The management API's job calls: list, start, re-run, re-run the failed tasks, stop. */
export function registerManageJobRoutes(app: FastifyInstance, context: HttpContext): void {
  const { deps } = context;

  app.get<{ Params: ProjectParams }>('/api/v1/projects/:project/jobs', async (request) => {
    const parsed = parseWith(JobsQuerySchema, request.query);
    if (!parsed.ok) throw errors.invalidRequest(parsed.message);
    const { cursor, limit, ...filter } = parsed.value;
    const page = await listProjectJobs(deps, await context.sessions.resolve(request), await context.sessions.realmOf(request), request.params.project, {
      filter,
      cursor: cursor ?? null,
      limit: limit ?? DEFAULT_JOBS_LIMIT,
    });
    return { jobs: page.jobs.map(presentListing), next_cursor: page.nextCursor, events_after: page.eventsAfter };
  });

  app.post<{ Params: ProjectParams }>('/api/v1/projects/:project/jobs/start', async (request) => {
    const viewer = await requireViewer(request, context);
    const target: StartTarget = parseBody(StartSchema, request);
    const { project, job, tasks } = await startJobAs(deps, viewer, request.params.project, target);
    request.log.info({ project: project.name, job: job.id, number: job.number, tasks, trigger: job.trigger, actor: job.actor }, 'job created');
    return { status: 'created', job_id: job.id, tasks };
  });

  app.post<{ Params: JobRef }>('/api/v1/projects/:project/jobs/:job/rerun', async (request) => {
    const viewer = await requireViewer(request, context);
    parseBody(NoParameters, request);
    const { project, job, tasks } = await rerunJobAs(deps, viewer, request.params);
    request.log.info({ project: project.name, job: job.id, number: job.number, tasks, trigger: job.trigger, actor: job.actor }, 'job created');
    return { status: 'created', job_id: job.id, tasks };
  });

  app.post<{ Params: JobRef }>('/api/v1/projects/:project/jobs/:job/rerun-failed', async (request) => {
    const viewer = await requireViewer(request, context);
    parseBody(NoParameters, request);
    const { project, job, tasks, rerun } = await rerunFailedTasksAs(deps, viewer, request.params);
    request.log.info({ project: project.name, job: job.id, tasks: rerun, actor: viewer.username }, 'failed tasks re-run');
    return { job: presentJob(job, project), tasks: tasks.map((task) => presentTaskSummary(task)), rerun_tasks: rerun };
  });

  app.post<{ Params: JobRef }>('/api/v1/projects/:project/jobs/:job/stop', async (request) => {
    const viewer = await requireViewer(request, context);
    parseBody(NoParameters, request);
    const { project, job, tasks } = await stopJobAs(deps, viewer, request.params);
    request.log.info({ project: project.name, job: job.id, actor: viewer.username }, 'job canceled');
    return { job: presentJob(job, project), tasks: tasks.map((task) => presentTaskSummary(task)) };
  });
}
