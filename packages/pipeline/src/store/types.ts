import type { JobState, ServiceSpec, TaskState } from '@conveyor/protocol';
import type { AttemptOutcome } from '../domain/rules/task-graph.js';
import type { WorkerOffer } from '../domain/rules/waiting-reason.js';
import type { CompiledTask } from '../pipeline-file/types.js';

export type Visibility = 'private' | 'public';

export interface Project {
  id: string;
  name: string;
  repo: string;
  visibility: Visibility;
  enabled: boolean;
  ownerUserId: string | null;
  /** The sign-in realm (slug) the project belongs to: it is served only on that realm's hosts. */
  realm: string;
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
  /** The commit's subject line, read at creation; null where unknown (jobs stored before it was recorded). */
  commitMessage: string | null;
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
  /** Seconds the pipeline file keeps this task's artifacts (`artifacts: {expire_in}`); null for the service's retention. */
  artifactExpireIn: number | null;
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
  /** The attempt that uploaded it; the task read lists the current attempt's artifacts. */
  attempt: number;
  path: string;
  size: number;
  sha256: string;
  createdAt: number;
  expiresAt: number | null;
}

/** An upload about to be streamed: recorded (as pending) before any byte is written. */
export interface ArtifactReservation {
  id: string;
  taskId: string;
  attempt: number;
  path: string;
  /** The declared length: it counts against the attempt's total until the upload settles. */
  size: number;
  createdAt: number;
}

export type ArtifactReservationResult =
  | { kind: 'reserved' }
  | { kind: 'not-held' }
  /** The attempt's artifacts (stored and in flight, the same path's stored one excepted) plus this one pass the cap. */
  | { kind: 'over-limit'; storedBytes: number };

/** What the bytes turned out to be, once they are in the blob store under the reservation's id. */
export interface ArtifactCompletion {
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
  /** The commit's subject line; absent or null when unknown. */
  commitMessage?: string | null;
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

/** Which jobs a list shows; absent fields do not filter. */
export interface JobFilter {
  ref?: string;
  state?: JobState;
  trigger?: string;
}

/** One job of a list, with what its tasks add to it. */
export interface JobListing {
  job: Job;
  /** The earliest start among its tasks' current attempts; null before any was claimed. */
  startedAt: number | null;
  /** How many of its tasks are in each state (states with none are absent). */
  taskCounts: Partial<Record<TaskState, number>>;
}

export type { WorkerOffer } from '../domain/rules/waiting-reason.js';

/** What asking to re-run a job's failed tasks did. */
export type FailedRerun =
  | { kind: 'rerun'; job: Job; tasks: number; workBecameAvailable: boolean }
  | { kind: 'running' }
  | { kind: 'nothing' };

/** How an attempt ended (the domain's rules decide what follows from it). */
export type TaskOutcome = AttemptOutcome;

/** What a change to a task did: its new state, and whether other tasks became claimable. */
export interface TaskTransition {
  task: Task;
  workBecameAvailable: boolean;
}

/**
 * One recorded change of a job or one of its tasks, in the order the changes were committed. `seq` is
 * increasing across the whole store, so "every event after seq N" is a position a reader can resume from.
 */
export type JobEvent = JobStateEvent | TaskStateEvent;

/** A job was created (its first event) or its state changed. */
export interface JobStateEvent {
  kind: 'job';
  seq: number;
  /** The job as it is now; `state` and `finishedAt` below are as they were at this event. */
  job: Job;
  state: JobState;
  finishedAt: number | null;
}

/** A task was created or its state or attempt changed; the fields are as they were at this event. */
export interface TaskStateEvent {
  kind: 'task';
  seq: number;
  jobId: string;
  taskId: string;
  name: string;
  state: TaskState;
  attempt: number;
  exitCode: number | null;
  startedAt: number | null;
  finishedAt: number | null;
}

export type ProjectChanges = Partial<Pick<Project, 'name' | 'enabled' | 'visibility' | 'repo' | 'triggerSecret' | 'ownerUserId'>>;

/** Which projects a page of the management list holds. */
export interface ProjectPageQuery {
  /** The realm of the request: only its projects are listed. */
  realm: string;
  /** Every project of the realm (an administrator), or only public ones plus those `ownerUserId` owns. */
  all: boolean;
  ownerUserId: string;
  /** Names strictly after this one (the previous page's last), or from the start. */
  afterName: string | null;
  limit: number;
}

/** A project with its newest job, as the management list shows it. */
export interface ProjectListing {
  project: Project;
  lastJob: Pick<Job, 'id' | 'number' | 'state' | 'ref' | 'createdAt'> | null;
}

/** What removing a project left for the caller to remove from the blob store. */
export interface RemovedProject {
  artifactIds: string[];
  taskIds: string[];
}

/** A worker that is not revoked, with the task it holds (running, its worker) if any. */
export interface WorkerActivity {
  worker: Worker;
  heldTask: { id: string; name: string; projectId: string; projectName: string; jobId: string; jobNumber: number } | null;
}

/** An API token as stored: the token itself is never kept, only its SHA-256. */
export interface ApiToken {
  id: string;
  userId: string;
  realm: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Raised by the store for a uniqueness violation (a taken project name, say). */
export class DuplicateError extends Error {}

/**
 * Everything the pipeline service keeps, in the domain's words. Every method is asynchronous so that a
 * store on a database server (PostgreSQL) implements the same interface; the SQLite store answers at
 * once. Callers await each call, and other requests may run between two calls: a sequence that must
 * not be interleaved is one method here, marked "Atomic:", and an implementation runs it as one
 * transaction (serialised against every other Atomic method touching the same rows) with the
 * guarantee its comment states. `store/contract.ts` checks each guarantee against every implementation.
 */
export interface PipelineStore {
  /**
   * Atomic: inserts the project unless its name or id is already some project's id or name (ids and
   * names share the URL segment); otherwise throws DuplicateError and stores nothing.
   */
  createProject(project: Project): Promise<void>;
  /** By id first, then by name. */
  findProject(idOrName: string): Promise<Project | null>;
  listProjects(): Promise<Project[]>;
  /**
   * Atomic when `changes.name` is given: the new name must not be another project's id or name, else
   * DuplicateError and nothing changes.
   */
  updateProject(id: string, changes: ProjectChanges, now: number): Promise<Project>;
  /**
   * One page of the management list: the realm's projects that `query` admits, by name, each with its
   * newest job (one query, however many projects). Projects without a realm of their own are in `system`.
   */
  listProjectPage(query: ProjectPageQuery): Promise<ProjectListing[]>;
  /**
   * Atomic: removes the project with its variables, jobs, tasks and artifact records, or nothing.
   * Returns the artifact ids and task ids whose bytes (artifacts, logs) the caller removes afterwards.
   * Null for an unknown id.
   */
  deleteProject(id: string): Promise<RemovedProject | null>;
  /** True when `value` is already some project's id or name (ids and names share the URL segment). */
  isProjectKeyTaken(value: string): Promise<boolean>;

  setVariable(projectId: string, variable: Variable, now: number): Promise<void>;
  unsetVariable(projectId: string, name: string): Promise<boolean>;
  listVariables(projectId: string): Promise<Variable[]>;

  /**
   * Atomic: inserts the worker unless a worker that is not revoked has its name; otherwise throws
   * DuplicateError and stores nothing. Two concurrent creations of one name never both succeed.
   */
  createWorker(worker: Worker, tokenHash: string): Promise<void>;
  /** The worker that is not revoked whose token hashes to `tokenHash`. */
  findWorkerByTokenHash(tokenHash: string): Promise<Worker | null>;
  /** By id first, then the newest worker of that name. */
  findWorker(idOrName: string): Promise<Worker | null>;
  listWorkers(): Promise<Worker[]>;
  revokeWorker(id: string, now: number): Promise<void>;
  /** Workers that are not revoked (only `ownerUserId`'s when given), oldest first (then by name), each with the task it holds. */
  listWorkerActivity(ownerUserId: string | null): Promise<WorkerActivity[]>;
  /** Records that the worker was seen; may skip the write when it was seen a few seconds ago. */
  touchWorker(id: string, now: number): Promise<void>;
  /** Records that the worker was seen claiming with this offer (arches and features). */
  recordWorkerOffer(id: string, offer: { arches: string[]; features: string[] }, now: number): Promise<void>;
  /** What each worker that is not revoked and was seen at or after `seenSince` last offered. */
  listLiveWorkerOffers(seenSince: number): Promise<WorkerOffer[]>;

  /**
   * Atomic: allocates the project's next job number and inserts the job with all its tasks, or
   * nothing. Two concurrent insertions for one project never get the same number.
   */
  insertJob(job: NewJob, ids: { jobId: string; taskIds: string[] }, now: number): Promise<Job>;
  /** By number when `idOrNumber` is a positive integer, else by id; only within the project. */
  findJob(projectId: string, idOrNumber: string): Promise<Job | null>;
  getJobById(id: string): Promise<Job | null>;
  /** In the pipeline file's order. */
  listTasksOfJob(jobId: string): Promise<Task[]>;
  /**
   * Up to `limit` of the project's jobs matching `filter`, newest (highest number) first, below
   * `beforeNumber` when given, each with its task counts by state: one query per page, however many jobs.
   */
  listJobs(projectId: string, filter: JobFilter, page: { beforeNumber: number | null; limit: number }): Promise<JobListing[]>;
  /**
   * Atomic: when the job is not running and some task failed or was canceled, moves the tasks
   * `planFailedRerun` (domain/rules/rerun.ts) picks back to waiting or blocked with their extended
   * attempt limits, and the job back to running (`finished_at` and the cancel flag cleared); other
   * tasks keep their results. `running` (nothing changed) while the job runs; `nothing` when no task
   * failed or was canceled.
   */
  rerunFailedTasks(jobId: string, now: number): Promise<FailedRerun>;
  /**
   * Atomic: flags the job canceled, moves each task to `stateOnCancel` (domain/task-graph.ts): tasks
   * not yet handed out are canceled, running ones keep running and learn of it at their next
   * heartbeat; then settles the job. A task claimed concurrently is either canceled before the claim
   * (and never handed out) or running when the flag is set.
   */
  cancelJob(jobId: string, now: number): Promise<Job>;

  getTask(id: string): Promise<Task | null>;
  /**
   * Atomic: hands the oldest eligible waiting task (oldest job, then file order) to one worker: it
   * becomes `running` with the next attempt, a lease and a deadline. No task is ever handed out twice,
   * however many claims run at once; null when none is eligible.
   */
  claimNextTask(filter: ClaimFilter, lease: ClaimLease): Promise<Task | null>;
  /**
   * Atomic: extends the lease of a task the worker holds (running, its worker) and says whether its job
   * was canceled; null when the worker does not hold it, and then nothing changes.
   */
  extendLease(taskId: string, workerId: string, leaseMs: number, now: number): Promise<{ cancel: boolean } | null>;
  /**
   * Atomic: records the outcome of a task the worker holds, in the state `nextStateAfterOutcome`
   * (domain/task-graph.ts) gives (requeued while attempts remain), and settles its job (dependents
   * unblocked or skipped, the job's outcome once every task is final). Null when the worker does not
   * hold the task (a second report, a lapsed lease), and then nothing changes.
   */
  completeTask(taskId: string, workerId: string, outcome: TaskOutcome, now: number): Promise<TaskTransition | null>;
  /**
   * Atomic: fails every held task whose lease or deadline passed with `lapsedOutcome`'s error
   * (`worker lost` / `timeout`), requeueing those with attempts left, and settles each job once. A task
   * is reaped at most once, and a completion racing with the reaper either wins (and the reaper skips
   * the task) or finds the task no longer held.
   */
  reapExpiredTasks(now: number): Promise<TaskTransition[]>;
  /**
   * Atomic compare-and-set of a log's recorded size: sets it to `size` only if the worker still holds
   * the task at `attempt` and the recorded size is still `expectedSize`; false otherwise (a stale
   * attempt or worker, or another append got there first), and then nothing changes.
   */
  setLogSize(taskId: string, workerId: string, attempt: number, expectedSize: number, size: number): Promise<boolean>;

  /**
   * Atomic: records a pending artifact of a task the worker holds at `reservation.attempt`, before its
   * bytes are written, unless the attempt's artifacts would then pass `maxTaskBytes`: the sizes of its
   * stored and pending artifacts, less a stored one of the same path (an upload replaces it), plus
   * this one. Otherwise nothing changes. A pending artifact is invisible to reads.
   */
  reserveArtifact(reservation: ArtifactReservation, workerId: string, maxTaskBytes: number): Promise<ArtifactReservationResult>;
  /**
   * Atomic: turns a pending artifact into a stored one if the worker still holds its task at its
   * attempt, and marks the attempt's stored artifact of the same path 'deleting' and returns it as
   * `replaced` (its bytes, then its record, are the caller's to remove). Otherwise marks the pending
   * one 'deleting' and answers `artifact: null`. Null artifact and replaced for an unknown id.
   */
  commitArtifact(id: string, workerId: string, completion: ArtifactCompletion): Promise<{ artifact: StoredArtifact | null; replaced: StoredArtifact | null }>;
  /** Removes an artifact's record in any state; the caller removed its bytes first. */
  removeArtifactRecord(id: string): Promise<void>;
  /** The stored artifacts of one attempt of a task, by path. */
  listArtifacts(taskId: string, attempt: number): Promise<StoredArtifact[]>;
  /** A stored artifact (never a pending or deleting one). */
  getArtifact(id: string): Promise<StoredArtifact | null>;
  /** Ids of artifacts pending or being deleted: after a crash, those whose bytes may be half there. */
  listUnsettledArtifacts(): Promise<string[]>;
  /** Whether any record (in any state) has this id; a file without one is an orphan. */
  hasArtifactRecord(id: string): Promise<boolean>;
  /** Up to `limit` stored artifacts whose `expiresAt` is at or before `now`, oldest expiry first. */
  listExpiredArtifacts(now: number, limit: number): Promise<StoredArtifact[]>;
  /** Gives stored artifacts without an expiry (recorded before retention existed) `createdAt + retentionMs`; returns how many. */
  assignMissingArtifactExpiry(retentionMs: number): Promise<number>;

  createApiToken(token: ApiToken, tokenHash: string): Promise<void>;
  /** The token that is not revoked whose hash is `tokenHash`. */
  findApiTokenByHash(tokenHash: string): Promise<ApiToken | null>;
  /** A user's tokens of one realm that are not revoked, oldest first. */
  listApiTokens(userId: string, realm: string): Promise<ApiToken[]>;
  /** Revokes the user's token of that realm; false when there is no such token that is not revoked. */
  revokeApiToken(id: string, userId: string, realm: string, now: number): Promise<boolean>;
  /** Records a use; may skip the write when it was used a few seconds ago. */
  touchApiToken(id: string, now: number): Promise<void>;
  /**
   * The events of one job with `seq` above `afterSeq`, oldest first, at most `limit`. Every Atomic
   * method that creates a job or changes a job's state, or a task's state or attempt, records one
   * event per change in the same transaction, so a reader never sees a change without its event; and
   * an event is visible only after every event with a lower `seq` (a reader resuming after `seq` N
   * misses nothing and repeats nothing).
   */
  listJobEvents(jobId: string, afterSeq: number, limit: number): Promise<JobEvent[]>;
  /** As listJobEvents, for the job events (creation, state changes; no task events) of every job of a project. */
  listProjectJobEvents(projectId: string, afterSeq: number, limit: number): Promise<JobStateEvent[]>;
  /** The `seq` of the newest event of any job (0 before the first): a feed resumed after it shows only what comes next. */
  latestEventSeq(): Promise<number>;

  close(): Promise<void>;
}
