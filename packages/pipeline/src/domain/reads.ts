import type { Readable } from 'node:stream';
import { errors } from '../errors.js';
import type { Job, Project, StoredArtifact, Task } from '../store/types.js';
import { artifactKey, chooseArtifactAttempt, isArtifactLive, listLiveArtifacts } from './artifacts.js';
import type { PipelineDeps } from './deps.js';
import { chooseLogAttempt, logKey } from './logs.js';
import { findWaitingReasons } from './waiting-reasons.js';
import { isServedInRealm, mayDownloadArtifact, mayReadBareTask, mayReadJob, type Reader, type SecretProof, type SessionViewer } from './policies.js';
import { findProjectInRealm } from './realm-scope.js';

/**
 * What a read request carries, as the HTTP layer found it. The read signature is an HMAC of the empty
 * body, so it can be checked only against the project's secret; the session is resolved only when the
 * signature did not already decide (it may cost a call to the sign-in service).
 */
export interface ReadCredentials {
  signature: SecretProof;
  /** The realm the request's Host selects (null: a host no realm has); projects of other realms are absent. */
  realm(): Promise<string | null>;
  resolveViewer(): Promise<SessionViewer | null>;
}

export interface JobRef {
  project: string;
  job: string;
}
export type TaskRef = JobRef & { task: string };

/** A byte source of known size, read by inclusive byte range. */
export interface BlobRead {
  size: number;
  read(range: { start: number; end: number }): Readable;
}

/** The trigger-secret holder of `project` when the signature proves it, else the session's person, else anonymous. */
async function identifyReader(credentials: ReadCredentials, project: Project | null): Promise<Reader> {
  if (project !== null && credentials.signature.proves(project.triggerSecret)) return { kind: 'trigger', projectId: project.id };
  const viewer = await credentials.resolveViewer();
  return viewer === null ? { kind: 'anonymous' } : { kind: 'session', viewer };
}

/** Project and job from the path, if the reader may see them; absence and denial are the same 404. */
async function loadReadableJob(
  deps: PipelineDeps,
  credentials: ReadCredentials,
  ref: JobRef,
  allowed: (reader: Reader, project: Project) => boolean,
): Promise<{ project: Project; job: Job }> {
  const project = await findProjectInRealm(deps, ref.project, await credentials.realm());
  if (project === null || !allowed(await identifyReader(credentials, project), project)) throw errors.notFound();
  const job = await deps.store.findJob(project.id, ref.job);
  if (job === null) throw errors.notFound();
  return { project, job };
}

async function loadTaskOfJob(deps: PipelineDeps, job: Job, taskId: string): Promise<Task> {
  const task = await deps.store.getTask(taskId);
  if (task === null || task.jobId !== job.id) throw errors.notFound();
  return task;
}

/** `GET /projects/:project/jobs/:job`: the job and its tasks, with why a waiting task has no worker. */
export async function readJob(
  deps: PipelineDeps,
  credentials: ReadCredentials,
  ref: JobRef,
): Promise<{ project: Project; job: Job; tasks: Task[]; waitingReasons: Map<string, string> }> {
  const { project, job } = await loadReadableJob(deps, credentials, ref, mayReadJob);
  const tasks = await deps.store.listTasksOfJob(job.id);
  return { project, job, tasks, waitingReasons: await findWaitingReasons(deps, project, tasks) };
}

export interface TaskRead {
  project: Project;
  job: Job;
  task: Task;
  /** The attempt whose artifacts are listed. */
  attempt: number;
  artifacts: StoredArtifact[];
}

/**
 * A task with one attempt's live artifacts: the current attempt's, or `requestedAttempt`'s (404 for one
 * that never was). With `ref.project` the task must belong to that project and the project's read rules
 * apply; without it (the bare `/tasks/:task`) only public projects and sessions may read.
 */
export async function readTask(
  deps: PipelineDeps,
  credentials: ReadCredentials,
  ref: { project?: string; task: string },
  requestedAttempt: number | null,
): Promise<TaskRead> {
  const { project, job, task } = ref.project === undefined ? await loadBareTask(deps, credentials, ref.task) : await loadScopedTask(deps, credentials, ref.project, ref.task);
  const attempt = chooseArtifactAttempt(task, requestedAttempt);
  if (attempt === null) throw errors.notFound();
  return { project, job, task, attempt, artifacts: await listLiveArtifacts(deps, task, attempt) };
}

async function loadBareTask(deps: PipelineDeps, credentials: ReadCredentials, taskId: string) {
  const task = await deps.store.getTask(taskId);
  const project = task === null ? null : await deps.store.findProject(task.projectId);
  const job = task === null ? null : await deps.store.getJobById(task.jobId);
  if (task === null || project === null || job === null) throw errors.notFound();
  if (!isServedInRealm(project, await credentials.realm())) throw errors.notFound();
  if (!mayReadBareTask(await identifyReader(credentials, null), project)) throw errors.notFound();
  return { project, job, task };
}

async function loadScopedTask(deps: PipelineDeps, credentials: ReadCredentials, projectKey: string, taskId: string) {
  const project = await findProjectInRealm(deps, projectKey, await credentials.realm());
  if (project === null) throw errors.notFound();
  const task = await deps.store.getTask(taskId);
  // The task must belong to the named project, or a guessed id could be read through a readable one.
  if (task === null || task.projectId !== project.id) throw errors.notFound();
  if (!mayReadJob(await identifyReader(credentials, project), project)) throw errors.notFound();
  const job = await deps.store.getJobById(task.jobId);
  if (job === null) throw errors.notFound();
  return { project, job, task };
}

/** The task whose log the path names, if the reader may read its job's logs: the log read's access rule, for reading and following alike. */
export async function locateLog(deps: PipelineDeps, credentials: ReadCredentials, ref: TaskRef): Promise<{ project: Project; job: Job; task: Task }> {
  const { project, job } = await loadReadableJob(deps, credentials, ref, mayReadJob);
  return { project, job, task: await loadTaskOfJob(deps, job, ref.task) };
}

/** A project whose jobs the reader may read (its job list and job events); 404 otherwise. */
export async function loadProjectOfJobs(deps: PipelineDeps, credentials: ReadCredentials, projectKey: string): Promise<Project> {
  const project = await deps.store.findProject(projectKey);
  if (project === null || !mayReadJob(await identifyReader(credentials, project), project)) throw errors.notFound();
  return project;
}

/** One attempt's log (the current one unless `requestedAttempt` names another), never past its recorded size. */
export async function openLog(deps: PipelineDeps, credentials: ReadCredentials, ref: TaskRef, requestedAttempt: number | null): Promise<BlobRead> {
  const { task } = await locateLog(deps, credentials, ref);
  const chosen = chooseLogAttempt(task, requestedAttempt);
  if (chosen === null) throw errors.notFound();
  const key = logKey(task.id, chosen.attempt);
  const size = chosen.size >= 0 ? chosen.size : ((await deps.blobs.size(key)) ?? 0);
  return { size, read: (range) => deps.blobs.read(key, range) };
}

/**
 * An artifact's bytes. Visibility is checked here every time, whatever URL the caller was handed; an
 * expired artifact is gone as soon as it expires, whether or not the sweep has removed it yet.
 */
export async function openArtifactDownload(
  deps: PipelineDeps,
  credentials: ReadCredentials,
  ref: TaskRef & { artifact: string },
): Promise<BlobRead & { artifact: StoredArtifact }> {
  const { job } = await loadReadableJob(deps, credentials, ref, mayDownloadArtifact);
  const task = await loadTaskOfJob(deps, job, ref.task);
  const artifact = await deps.store.getArtifact(ref.artifact);
  if (artifact === null || artifact.taskId !== task.id || !isArtifactLive(artifact, deps.clock.now())) throw errors.notFound();
  return { artifact, size: artifact.size, read: (range) => deps.blobs.read(artifactKey(artifact.id), range) };
}
