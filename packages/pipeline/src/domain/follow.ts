import type { Readable } from 'node:stream';
import { errors } from '../errors.js';
import type { JobEvent, JobStateEvent, Project, Job } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { eventKeys } from './events.js';
import { logKey } from './logs.js';
import { loadProjectOfJobs, locateLog, readJob, type JobRef, type ReadCredentials, type TaskRef } from './reads.js';
import { isFinal } from './rules/task-graph.js';

/** Where a followed attempt's log stands: its recorded size, and whether no byte will follow. */
export interface LogStatus {
  size: number;
  final: boolean;
}

/** One attempt's log, followed: read its status again after each wake, and its bytes by range. */
export interface LogFollow {
  attempt: number;
  /** Hub keys whose publish may mean new bytes or the attempt's end. */
  keys: string[];
  status(): Promise<LogStatus>;
  read(range: { start: number; end: number }): Readable;
}

/**
 * Follows one attempt's log, with exactly the log read's access rule (locateLog). Without
 * `requestedAttempt` it is the current attempt, or the first one for a task not yet started (its log
 * is empty until a worker claims it). An attempt is final once the task left it: a later attempt
 * began, or the task is no longer running it (done, requeued, or ended without ever running).
 */
export async function followLog(deps: PipelineDeps, credentials: ReadCredentials, ref: TaskRef, requestedAttempt: number | null): Promise<LogFollow> {
  const { task } = await locateLog(deps, credentials, ref);
  if (requestedAttempt !== null && (requestedAttempt < 1 || requestedAttempt > task.attempt)) throw errors.notFound();
  const attempt = requestedAttempt ?? Math.max(task.attempt, 1);
  const key = logKey(task.id, attempt);
  return {
    attempt,
    keys: [eventKeys.task(task.id), eventKeys.job(task.jobId)],
    async status() {
      const now = await deps.store.getTask(task.id);
      // A task removed with its project: nothing more will come.
      if (now === null) return { size: 0, final: true };
      if (now.attempt === attempt) return { size: now.logSize, final: now.state !== 'running' };
      if (now.attempt > attempt) return { size: (await deps.blobs.size(key)) ?? 0, final: true };
      return { size: 0, final: isFinal(now.state) };
    },
    read: (range) => deps.blobs.read(key, range),
  };
}

/** A feed of recorded events after a position, and the hub keys that announce new ones. */
export interface EventFeed<E> {
  keys: string[];
  list(afterSeq: number, limit: number): Promise<E[]>;
}

/** A job's events (its state, its tasks' states), readable as the job read is. */
export async function followJobEvents(deps: PipelineDeps, credentials: ReadCredentials, ref: JobRef): Promise<EventFeed<JobEvent> & { project: Project; job: Job }> {
  const { project, job } = await readJob(deps, credentials, ref);
  return {
    project,
    job,
    keys: [eventKeys.job(job.id)],
    list: (afterSeq, limit) => deps.store.listJobEvents(job.id, afterSeq, limit),
  };
}

/** A project's job creations and job state changes, readable by whoever may read its jobs. */
export async function followProjectEvents(deps: PipelineDeps, credentials: ReadCredentials, projectKey: string): Promise<EventFeed<JobStateEvent> & { project: Project }> {
  const project = await loadProjectOfJobs(deps, credentials, projectKey);
  return {
    project,
    keys: [eventKeys.project(project.id)],
    list: (afterSeq, limit) => deps.store.listProjectJobEvents(project.id, afterSeq, limit),
  };
}
