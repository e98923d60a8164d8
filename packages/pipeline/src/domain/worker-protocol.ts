import type { Readable } from 'node:stream';
import type { ClaimRequest, ClaimedTask, CompleteRequest, TaskEndpoints } from '@conveyor/protocol';
import { errors } from '../errors.js';
import type { Job, Task, TaskTransition, Worker } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { publishJobChange } from './events.js';
import { maskSecrets, readSecretValues } from './masking.js';

/** Longest a claim may be held open waiting for work. */
export const MAX_CLAIM_WAIT_SECONDS = 60;

function leaseMs(deps: PipelineDeps): number {
  return deps.config.heartbeatInterval * 3 * 1000;
}

/** The absolute URLs of the worker calls for one task; `base` is the service's public URL. */
export function taskEndpoints(base: string, taskId: string): TaskEndpoints {
  const root = `${base}/api/v1/tasks/${encodeURIComponent(taskId)}`;
  return {
    source: `${root}/source.tar.gz`,
    log: `${root}/log`,
    artifact: `${root}/artifacts`,
    heartbeat: `${root}/heartbeat`,
    done: `${root}/complete`,
  };
}

/**
 * The environment the script sees: the compiled env (pipeline, task, matrix), then the project's
 * variables, then the service's own variables, which nothing can override.
 */
async function buildEnvironment(
  deps: PipelineDeps,
  task: Task,
  job: Job | null,
): Promise<{ env: Record<string, string>; masked: string[] }> {
  const variables = await deps.store.listVariables(task.projectId);
  const env: Record<string, string> = { ...task.env };
  for (const variable of variables) env[variable.name] = variable.value;
  Object.assign(env, {
    CI: 'true',
    PIPELINE_PROJECT: task.projectId,
    PIPELINE_JOB: task.jobId,
    PIPELINE_TASK: task.id,
    PIPELINE_SHA: job?.headSha ?? '',
    PIPELINE_REF: job?.ref ?? '',
  });
  const masked = variables.filter((variable) => variable.secret).map((variable) => variable.value);
  return { env, masked };
}

async function toClaimedTask(deps: PipelineDeps, task: Task, base: string): Promise<ClaimedTask> {
  const job = await deps.store.getJobById(task.jobId);
  const { env, masked } = await buildEnvironment(deps, task, job);
  return {
    id: task.id,
    name: task.name,
    image: task.image,
    workdir: task.workdir,
    script: task.script,
    env,
    requires: task.requires,
    services: task.services,
    artifacts: { paths: task.artifactPaths },
    timeout: task.timeout,
    attempt: task.attempt,
    sha: job?.headSha ?? '',
    ref: job?.ref ?? '',
    masked,
    heartbeat_interval: deps.config.heartbeatInterval,
    endpoints: taskEndpoints(base, task.id),
  };
}

/** Fails held tasks whose worker went quiet or whose time ran out, and wakes claimers for requeued ones. */
export async function reapExpiredTasks(deps: PipelineDeps): Promise<TaskTransition[]> {
  const transitions = await deps.store.reapExpiredTasks(deps.clock.now());
  if (transitions.some((transition) => transition.workBecameAvailable)) deps.work.notify();
  const jobs = new Map(transitions.map(({ task }) => [task.jobId, { id: task.jobId, projectId: task.projectId }]));
  for (const job of jobs.values()) publishJobChange(deps.events, job);
  return transitions;
}

/**
 * Hands the oldest eligible task to the worker, waiting up to `waitSeconds` for one to appear.
 * Returns null when there is none (or the caller went away).
 */
export async function claimTask(
  deps: PipelineDeps,
  worker: Worker,
  request: ClaimRequest,
  options: { waitSeconds: number; baseUrl: string; abort: AbortSignal },
): Promise<ClaimedTask | null> {
  // The hold is real time on the wire, so it uses the real clock; task times use deps.clock.
  const deadline = Date.now() + options.waitSeconds * 1000;
  // What the worker offers is kept, so a task no live worker can take can say why it waits.
  await deps.store.recordWorkerOffer(worker.id, { arches: request.arches, features: request.features }, deps.clock.now());
  for (;;) {
    await reapExpiredTasks(deps);
    const task = await deps.store.claimNextTask(
      { arches: request.arches, features: request.features, ownerUserId: worker.ownerUserId },
      {
        workerId: worker.id,
        // The registered name, never the claim's own word for it: the read shows who really ran the task.
        workerName: worker.name,
        now: deps.clock.now(),
        leaseMs: leaseMs(deps),
        timeoutGraceMs: deps.config.heartbeatInterval * 1000,
      },
    );
    if (task !== null) {
      publishJobChange(deps.events, { id: task.jobId, projectId: task.projectId });
      return toClaimedTask(deps, task, options.baseUrl);
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0 || options.abort.aborted) return null;
    // Wake at least once a second so leases that lapse while we wait are reaped and reclaimable.
    await deps.work.wait(Math.min(remaining, 1000), options.abort);
  }
}

/** The task a worker holds, or null: a worker may touch only a task it currently holds. */
export async function findHeldTask(deps: PipelineDeps, worker: Worker, taskId: string): Promise<Task | null> {
  const task = await deps.store.getTask(taskId);
  return task !== null && task.state === 'running' && task.workerId === worker.id ? task : null;
}

/** As findHeldTask, but a task the worker does not hold is 404. */
export async function requireHeldTask(deps: PipelineDeps, worker: Worker, taskId: string): Promise<Task> {
  const task = await findHeldTask(deps, worker, taskId);
  if (task === null) throw errors.notFound();
  return task;
}

/** The held task's source tree at its job's commit, as a gzip tar stream (fetched again if the mirror lost it). */
export async function openTaskSource(deps: PipelineDeps, worker: Worker, taskId: string): Promise<Readable> {
  const task = await requireHeldTask(deps, worker, taskId);
  const job = await deps.store.getJobById(task.jobId);
  const project = await deps.store.findProject(task.projectId);
  if (job === null || project === null) throw errors.notFound();
  if (!(await deps.repos.ensureCommit(project.repo, job.headSha))) throw errors.commitGone();
  return deps.repos.archive(project.repo, job.headSha);
}

/** Extends the lease of a held task; the answer tells the worker whether the job was canceled. */
export async function heartbeat(deps: PipelineDeps, worker: Worker, taskId: string): Promise<{ cancel: boolean }> {
  const now = deps.clock.now();
  await deps.store.touchWorker(worker.id, now);
  const answer = await deps.store.extendLease(taskId, worker.id, leaseMs(deps), now);
  if (answer === null) throw errors.notFound();
  return answer;
}

export async function completeTask(
  deps: PipelineDeps,
  worker: Worker,
  taskId: string,
  report: CompleteRequest,
): Promise<Task> {
  const held = await requireHeldTask(deps, worker, taskId);
  // The worker's error text is shown to every reader of the task: no secret value may survive in it.
  const error = report.error === undefined || report.error === null ? null : maskSecrets(report.error, await readSecretValues(deps, held.projectId));
  const transition = await deps.store.completeTask(
    taskId,
    worker.id,
    { success: report.success, exitCode: report.exit_code, error },
    deps.clock.now(),
  );
  if (transition === null) throw errors.notFound();
  if (transition.workBecameAvailable) deps.work.notify();
  publishJobChange(deps.events, { id: transition.task.jobId, projectId: transition.task.projectId });
  return transition.task;
}
