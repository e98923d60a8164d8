import type { JobState, ServiceSpec, TaskState } from '@conveyor/protocol';
import type { CompiledTask } from '../pipeline-file/types.js';

export type Visibility = 'private' | 'public';

export interface Project {
  id: string;
  name: string;
  repo: string;
  visibility: Visibility;
  enabled: boolean;
  ownerUserId: string | null;
  triggerSecret: string;
  createdAt: number;
  updatedAt: number;
}

export interface Variable {
  name: string;
  value: string;
  secret: boolean;
}

export interface Worker {
  id: string;
  name: string;
  ownerUserId: string | null;
  createdAt: number;
  revokedAt: number | null;
  lastSeenAt: number | null;
}

export interface Job {
  id: string;
  projectId: string;
  number: number;
  state: JobState;
  ref: string;
  headSha: string;
  base: string | null;
  actor: string;
  trigger: string;
  cancelRequested: boolean;
  createdAt: number;
  finishedAt: number | null;
}

export interface Task {
  id: string;
  jobId: string;
  projectId: string;
  position: number;
  name: string;
  baseName: string;
  state: TaskState;
  arch: string;
  image: string;
  script: string[];
  env: Record<string, string>;
  services: ServiceSpec[];
  requires: string[];
  artifactPaths: string[];
  workdir: string;
  timeout: number;
  attempt: number;
  maxAttempts: number;
  allowFailure: boolean;
  needs: string[];
  matrix: Record<string, string>;
  exitCode: number | null;
  error: string | null;
  workerId: string | null;
  workerName: string | null;
  leaseExpiresAt: number | null;
  deadlineAt: number | null;
  logSize: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
}

export interface StoredArtifact {
  id: string;
  taskId: string;
  path: string;
  size: number;
  sha256: string;
  createdAt: number;
  expiresAt: number | null;
}

export interface NewJob {
  projectId: string;
  ref: string;
  headSha: string;
  base: string | null;
  actor: string;
  trigger: string;
  tasks: CompiledTask[];
}

export interface ClaimFilter {
  arches: string[];
  features: string[];
  /** A user-owned worker only sees its owner's projects. */
  ownerUserId: string | null;
}

export interface ClaimLease {
  workerId: string;
  workerName: string;
  now: number;
  /** Milliseconds without a heartbeat before the task is lost. */
  leaseMs: number;
  /** Milliseconds past the task's timeout the service waits for the worker's own timeout report. */
  timeoutGraceMs: number;
}

export interface TaskOutcome {
  success: boolean;
  exitCode: number | null;
  error: string | null;
}

/** What a change to a task did: its new state, and whether other tasks became claimable. */
export interface TaskTransition {
  task: Task;
  workBecameAvailable: boolean;
}

export type ProjectChanges = Partial<Pick<Project, 'enabled' | 'visibility' | 'repo' | 'triggerSecret' | 'ownerUserId'>>;

/** Raised by the store for a uniqueness violation (a taken project name, say). */
export class DuplicateError extends Error {}

/**
 * Everything the pipeline service keeps, in the domain's words. Methods that race with other callers
 * (claiming, completing, reaping, appending) are single atomic operations, as their comments say.
 */
export interface PipelineStore {
  createProject(project: Project): void;
  /** By id first, then by name. */
  findProject(idOrName: string): Project | null;
  listProjects(): Project[];
  updateProject(id: string, changes: ProjectChanges, now: number): Project;
  /** True when `value` is already some project's id or name (ids and names share the URL segment). */
  isProjectKeyTaken(value: string): boolean;

  setVariable(projectId: string, variable: Variable, now: number): void;
  unsetVariable(projectId: string, name: string): boolean;
  listVariables(projectId: string): Variable[];

  createWorker(worker: Worker, tokenHash: string): void;
  findWorkerByTokenHash(tokenHash: string): Worker | null;
  findWorker(idOrName: string): Worker | null;
  listWorkers(): Worker[];
  revokeWorker(id: string, now: number): void;
  touchWorker(id: string, now: number): void;

  /** Atomic: allocates the project's next job number and inserts the job with all its tasks. */
  insertJob(job: NewJob, ids: { jobId: string; taskIds: string[] }, now: number): Job;
  findJob(projectId: string, idOrNumber: string): Job | null;
  getJobById(id: string): Job | null;
  listTasksOfJob(jobId: string): Task[];
  /** Atomic: cancels waiting and blocked tasks, flags running ones, settles the job. */
  cancelJob(jobId: string, now: number): Job;

  getTask(id: string): Task | null;
  /** Atomic: hands the oldest eligible waiting task to one worker; no task is ever handed out twice. */
  claimNextTask(filter: ClaimFilter, lease: ClaimLease): Task | null;
  /** Atomic: extends the lease of a task the worker holds; null when it does not hold it. */
  extendLease(taskId: string, workerId: string, leaseMs: number, now: number): { cancel: boolean } | null;
  /** Atomic: records the outcome of the held task, requeueing it while attempts remain. */
  completeTask(taskId: string, workerId: string, outcome: TaskOutcome, now: number): TaskTransition | null;
  /** Atomic: fails every held task whose lease or deadline passed (`worker lost` / `timeout`). */
  reapExpiredTasks(now: number): TaskTransition[];
  /** Atomic: sets the log size if the worker still holds the task at `attempt`. */
  setLogSize(taskId: string, workerId: string, attempt: number, size: number): boolean;

  /** Atomic: stores (or replaces by path) an artifact of a held task; returns the replaced one. */
  putArtifact(artifact: StoredArtifact, workerId: string): { stored: boolean; replaced: StoredArtifact | null };
  listArtifacts(taskId: string): StoredArtifact[];
  getArtifact(id: string): StoredArtifact | null;

  close(): void;
}
