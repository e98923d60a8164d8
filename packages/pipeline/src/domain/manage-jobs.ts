import { errors } from '../errors.js';
import type { Job, JobFilter, JobListing, Project, Task } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { decodeJobCursor, encodeJobCursor } from './job-cursor.js';
import { publishJobChange } from './events.js';
import { createJob } from './jobs.js';
import { viewerMayManage, type SessionViewer } from './policies.js';
import type { JobRef } from './reads.js';
import { findProjectInRealm } from './realm-scope.js';

/** How a job started from the management API is recorded (`trigger`). */
export const MANUAL_TRIGGER = 'manual';
/** How a re-run of a whole job is recorded (`trigger`). */
export const RERUN_TRIGGER = 'rerun';

/**
 * A project the viewer may manage, served in the viewer's realm (the realm the request's Host selects);
 * absence and denial are the same 404.
 */
async function loadManagedProject(deps: PipelineDeps, viewer: SessionViewer, projectKey: string): Promise<Project> {
  const project = await findProjectInRealm(deps, projectKey, viewer.realm);
  if (project === null || !viewerMayManage(viewer, project)) throw errors.notFound();
  return project;
}

/** As loadManagedProject, for a call that starts work: a disabled project takes none (409). */
async function loadEnabledProject(deps: PipelineDeps, viewer: SessionViewer, projectKey: string): Promise<Project> {
  const project = await loadManagedProject(deps, viewer, projectKey);
  if (!project.enabled) throw errors.projectDisabled();
  return project;
}

async function loadJob(deps: PipelineDeps, project: Project, jobKey: string): Promise<Job> {
  const job = await deps.store.findJob(project.id, jobKey);
  if (job === null) throw errors.notFound();
  return job;
}

export interface JobsQuery {
  filter: JobFilter;
  cursor: string | null;
  limit: number;
}

export interface JobsPage {
  project: Project;
  jobs: JobListing[];
  nextCursor: string | null;
  /** The newest event's seq, read before the page: following the project's events after it misses nothing the page lacks. */
  eventsAfter: number;
}

/**
 * A project's jobs, newest first, a page at a time. Readable as the job read is by people: anyone for
 * a public project, else a session that may manage it (the trigger secret does not list jobs).
 */
export async function listProjectJobs(
  deps: PipelineDeps,
  viewer: SessionViewer | null,
  callerRealm: string | null,
  projectKey: string,
  query: JobsQuery,
): Promise<JobsPage> {
  const beforeNumber = query.cursor === null ? null : decodeJobCursor(query.cursor);
  const project = await findProjectInRealm(deps, projectKey, callerRealm);
  if (project === null || !(project.visibility === 'public' || (viewer !== null && viewerMayManage(viewer, project)))) throw errors.notFound();
  // Read before the jobs: a change between the two reads is both on the page and in the feed after it,
  // and following the feed twice over one change only re-reads what is already right.
  const eventsAfter = await deps.store.latestEventSeq();
  // One more than asked says whether another page follows.
  const listings = await deps.store.listJobs(project.id, query.filter, { beforeNumber, limit: query.limit + 1 });
  const jobs = listings.slice(0, query.limit);
  const last = jobs.at(-1);
  return { project, jobs, nextCursor: listings.length > query.limit && last !== undefined ? encodeJobCursor(last.job.number) : null, eventsAfter };
}

/** What to start a job at: a branch or tag (resolved now), or a commit with the ref to record beside it. */
export type StartTarget = { ref: string } | { sha: string; ref?: string };

/** Starts a job for a person: at a ref resolved with git now, or at a commit; recorded as `manual` by them. */
export async function startJobAs(deps: PipelineDeps, viewer: SessionViewer, projectKey: string, target: StartTarget) {
  const project = await loadEnabledProject(deps, viewer, projectKey);
  let sha: string;
  let ref: string;
  if ('sha' in target) {
    sha = target.sha;
    ref = target.ref ?? '';
  } else {
    const found = await deps.repos.resolveRef(project.repo, target.ref);
    if (!found.found) throw errors.commitUnusable(found.reason);
    sha = found.sha;
    ref = found.ref;
  }
  const created = await createJob(deps, project, { sha, ref, base: null, actor: viewer.username, trigger: MANUAL_TRIGGER });
  return { project, ...created };
}

/** A new job at the same commit and ref as an earlier one, with the pipeline file compiled again. */
export async function rerunJobAs(deps: PipelineDeps, viewer: SessionViewer, ref: JobRef) {
  const project = await loadEnabledProject(deps, viewer, ref.project);
  const earlier = await loadJob(deps, project, ref.job);
  const created = await createJob(deps, project, { sha: earlier.headSha, ref: earlier.ref, base: earlier.base, actor: viewer.username, trigger: RERUN_TRIGGER });
  return { project, ...created };
}

/**
 * Runs a finished job's failed and canceled tasks again, with their skipped dependents, as new attempts
 * in the same job (store.rerunFailedTasks). 409 while the job runs, and for a job with nothing failed.
 */
export async function rerunFailedTasksAs(deps: PipelineDeps, viewer: SessionViewer, ref: JobRef): Promise<{ project: Project; job: Job; tasks: Task[]; rerun: number }> {
  const project = await loadEnabledProject(deps, viewer, ref.project);
  const job = await loadJob(deps, project, ref.job);
  const result = await deps.store.rerunFailedTasks(job.id, deps.clock.now());
  if (result.kind === 'running') throw errors.jobRunning();
  if (result.kind === 'nothing') throw errors.nothingToRerun();
  if (result.workBecameAvailable) deps.work.notify();
  // Followers of the job and the project wake now rather than at their fallback re-check.
  publishJobChange(deps.events, result.job);
  return { project, job: result.job, tasks: await deps.store.listTasksOfJob(job.id), rerun: result.tasks };
}

/** Cancels a job for a person who may manage its project (the trigger-secret `/cancel` is the other way). */
export async function stopJobAs(deps: PipelineDeps, viewer: SessionViewer, ref: JobRef): Promise<{ project: Project; job: Job; tasks: Task[] }> {
  const project = await loadManagedProject(deps, viewer, ref.project);
  const job = await loadJob(deps, project, ref.job);
  const canceled = await deps.store.cancelJob(job.id, deps.clock.now());
  publishJobChange(deps.events, canceled);
  return { project, job: canceled, tasks: await deps.store.listTasksOfJob(job.id) };
}
