import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseWith } from '@conveyor/protocol';
import { createJob, type JobRequest } from '../../domain/jobs.js';
import { authorizeTrigger, cancelJobByTrigger, isKnownProject } from '../../domain/triggers.js';
import { errors, ServiceError } from '../../errors.js';
import type { Project } from '../../store/types.js';
import { BodyBudget, bodyCost, closeIfBodyUnread, JSON_BODY_LIMIT, parseJsonBody, rawBody } from '../body.js';
import type { HttpContext } from '../context.js';
import { bodyProof } from '../credentials.js';
import { presentJob, presentTaskSummary } from '../present.js';
import { readPushDelivery } from '../triggers/push-payload.js';

/** Push deliveries from hosted services can be large (GitHub caps them at 25 MB); ours are tiny. */
const TRIGGER_BODY_LIMIT = 25 * 1024 * 1024;

/**
 * Bytes of trigger-secret bodies buffered at once across the server: one delivery at the 25 MiB limit
 * and room for many ordinary ones. Past it a request is answered 503 before its body is read.
 */
export const TRIGGER_BODY_BUDGET = 32 * 1024 * 1024;
const RETRY_AFTER_SECONDS = 5;

/** The headers that can carry the trigger secret, per route: a request with none of them cannot pass. */
const SIGNATURE_HEADERS = ['x-hub-signature-256'];
const PUSH_CREDENTIAL_HEADERS = ['x-hub-signature-256', 'x-git-token', 'x-gitlab-token'];

const JobCreationSchema = z.strictObject({
  sha: z.string({ error: 'sha is required' }).regex(/^[0-9a-f]{40}$/, 'sha must be a full 40-hex commit id'),
  ref: z.string().max(1024).optional(),
  base: z.string().max(1024).nullable().optional(),
  actor: z.string().max(256).optional(),
  trigger: z.string().min(1).max(64).optional(),
});

type Params = { project: string };

function hasCredentialHeader(request: FastifyRequest, names: readonly string[]): boolean {
  return names.some((name) => {
    const value = request.headers[name];
    return typeof value === 'string' && value !== '';
  });
}

/** Answers from the headers alone, leaving the body unread (and the connection to close when it is long). */
function refuseUnread(request: FastifyRequest, reply: FastifyReply, error: ServiceError): never {
  closeIfBodyUnread(request, reply);
  throw error;
}

/**
 * What can be refused before a byte of the body is read, in the spec's order: an unknown project (404),
 * then a request carrying no credential header at all (401). A credential that is present but wrong is
 * only known after the body (the HMAC covers it), so those bodies are read, within the budget; past it,
 * 503 before reading. The handler checks everything again on the body it got.
 */
function screenBeforeBody(context: HttpContext, budget: BodyBudget, credentialHeaders: readonly string[], bodyLimit: number) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const realm = await context.sessions.realmOf(request);
    if (!(await isKnownProject(context.deps, (request.params as Params).project, realm))) refuseUnread(request, reply, errors.notFound());
    if (!hasCredentialHeader(request, credentialHeaders)) refuseUnread(request, reply, errors.signatureInvalid());
    const release = budget.tryReserve(bodyCost(request, bodyLimit));
    if (release === null) {
      void reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      refuseUnread(request, reply, errors.busy(RETRY_AFTER_SECONDS));
    }
    // 'close' comes once the response is sent or the connection is gone, whichever is first.
    reply.raw.once('close', release);
  };
}

/** Leaves a trace of every refused trigger-secret call: project as addressed, status and reason, never a credential. */
async function logRefusal(request: FastifyRequest, _reply: FastifyReply, error: FastifyError | ServiceError): Promise<void> {
  const status = error instanceof ServiceError ? error.status : (error.statusCode ?? 500);
  // Failures of the service itself are logged by the error handler.
  if (status >= 500 && status !== 503) return;
  const problems = error instanceof ServiceError && Array.isArray(error.extra.problems) ? error.extra.problems : undefined;
  request.log.warn(
    {
      project: (request.params as Params).project,
      route: request.routeOptions.url,
      status,
      reason: error.message,
      ...(problems === undefined ? {} : { problems: problems.map((problem: { path?: unknown }) => problem.path) }),
    },
    'trigger refused',
  );
}

async function startJob(context: HttpContext, project: Project, request: JobRequest, log: FastifyRequest['log']) {
  const { job, tasks } = await createJob(context.deps, project, request);
  log.info({ project: project.name, job: job.id, number: job.number, tasks, trigger: request.trigger }, 'job created');
  return { status: 'created', job_id: job.id, tasks };
}

export function registerTriggerRoutes(app: FastifyInstance, context: HttpContext): void {
  const budget = new BodyBudget(TRIGGER_BODY_BUDGET);

  app.post<{ Params: Params }>(
    '/api/v1/projects/:project/trigger',
    {
      bodyLimit: TRIGGER_BODY_LIMIT,
      onRequest: screenBeforeBody(context, budget, PUSH_CREDENTIAL_HEADERS, TRIGGER_BODY_LIMIT),
      onError: logRefusal,
    },
    async (request) => {
      const proof = bodyProof(request, rawBody(request), { allowPlainToken: true });
      const project = await authorizeTrigger(context.deps, request.params.project, proof, await context.sessions.realmOf(request));
      const delivery = readPushDelivery(request.headers, parseJsonBody(request));
      if (delivery.kind === 'invalid') throw errors.invalidRequest(delivery.message);
      if (delivery.kind === 'ignored') return { status: 'ignored', reason: delivery.reason };
      return startJob(
        context,
        project,
        { sha: delivery.sha, ref: delivery.ref, base: delivery.base === '' ? null : delivery.base, actor: delivery.actor, trigger: 'push' },
        request.log,
      );
    },
  );

  app.post<{ Params: Params }>(
    '/api/v1/projects/:project/jobs',
    { onRequest: screenBeforeBody(context, budget, SIGNATURE_HEADERS, JSON_BODY_LIMIT), onError: logRefusal },
    async (request) => {
      const proof = bodyProof(request, rawBody(request), { allowPlainToken: false });
      const project = await authorizeTrigger(context.deps, request.params.project, proof, await context.sessions.realmOf(request));
      const parsed = parseWith(JobCreationSchema, parseJsonBody(request) ?? {});
      if (!parsed.ok) throw errors.invalidRequest(parsed.message);
      const body = parsed.value;
      return startJob(
        context,
        project,
        { sha: body.sha, ref: body.ref ?? '', base: body.base ?? null, actor: body.actor ?? '', trigger: body.trigger ?? 'api' },
        request.log,
      );
    },
  );

  app.post<{ Params: Params & { job: string } }>(
    '/api/v1/projects/:project/jobs/:job/cancel',
    { onRequest: screenBeforeBody(context, budget, SIGNATURE_HEADERS, JSON_BODY_LIMIT), onError: logRefusal },
    async (request) => {
      const proof = bodyProof(request, rawBody(request), { allowPlainToken: false });
      const { project, job, tasks } = await cancelJobByTrigger(context.deps, request.params, proof, rawBody(request), await context.sessions.realmOf(request));
      request.log.info({ project: project.name, job: job.id }, 'job canceled');
      return { job: presentJob(job, project), tasks: tasks.map((task) => presentTaskSummary(task)) };
    },
  );
}
