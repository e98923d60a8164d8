import type { JobState, ServiceSpec, TaskState } from '@conveyor/protocol';
import type { Job, Project, StoredArtifact, Task, Visibility, Worker } from '../types.js';

/** Raw rows as SQLite returns them; mapped to domain objects right here and nowhere else. */
export interface ProjectRow {
  id: string;
  name: string;
  repo: string;
  visibility: string;
  enabled: number;
  owner_user_id: string | null;
  realm: string;
  trigger_secret: string;
  created_at: number;
  updated_at: number;
}

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    name: row.name,
    repo: row.repo,
    visibility: row.visibility as Visibility,
    enabled: row.enabled === 1,
    ownerUserId: row.owner_user_id,
    realm: row.realm,
    triggerSecret: row.trigger_secret,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export interface WorkerRow {
  id: string;
  name: string;
  owner_user_id: string | null;
  created_at: number;
  revoked_at: number | null;
  last_seen_at: number | null;
}

export function toWorker(row: WorkerRow): Worker {
  return {
    id: row.id,
    name: row.name,
    ownerUserId: row.owner_user_id,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastSeenAt: row.last_seen_at,
  };
}

export interface JobRow {
  id: string;
  project_id: string;
  number: number;
  state: string;
  ref: string;
  head_sha: string;
  base: string | null;
  actor: string;
  trigger: string;
  commit_message: string | null;
  cancel_requested: number;
  created_at: number;
  finished_at: number | null;
}

export function toJob(row: JobRow): Job {
  return {
    id: row.id,
    projectId: row.project_id,
    number: row.number,
    state: row.state as JobState,
    ref: row.ref,
    headSha: row.head_sha,
    base: row.base,
    actor: row.actor,
    trigger: row.trigger,
    commitMessage: row.commit_message ?? null,
    cancelRequested: row.cancel_requested === 1,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}

export interface TaskRow {
  id: string;
  job_id: string;
  project_id: string;
  position: number;
  name: string;
  base_name: string;
  state: string;
  arch: string;
  image: string;
  script: string;
  env: string;
  services: string;
  requires: string;
  artifact_paths: string;
  artifact_expire_in: number | null;
  workdir: string;
  timeout: number;
  attempt: number;
  max_attempts: number;
  allow_failure: number;
  needs: string;
  matrix: string;
  exit_code: number | null;
  error: string | null;
  worker_id: string | null;
  worker_name: string | null;
  lease_expires_at: number | null;
  deadline_at: number | null;
  log_size: number;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export function toTask(row: TaskRow): Task {
  return {
    id: row.id,
    jobId: row.job_id,
    projectId: row.project_id,
    position: row.position,
    name: row.name,
    baseName: row.base_name,
    state: row.state as TaskState,
    arch: row.arch,
    image: row.image,
    script: JSON.parse(row.script) as string[],
    env: JSON.parse(row.env) as Record<string, string>,
    services: JSON.parse(row.services) as ServiceSpec[],
    requires: JSON.parse(row.requires) as string[],
    artifactPaths: JSON.parse(row.artifact_paths) as string[],
    artifactExpireIn: row.artifact_expire_in,
    workdir: row.workdir,
    timeout: row.timeout,
    attempt: row.attempt,
    maxAttempts: row.max_attempts,
    allowFailure: row.allow_failure === 1,
    needs: JSON.parse(row.needs) as string[],
    matrix: JSON.parse(row.matrix) as Record<string, string>,
    exitCode: row.exit_code,
    error: row.error,
    workerId: row.worker_id,
    workerName: row.worker_name,
    leaseExpiresAt: row.lease_expires_at,
    deadlineAt: row.deadline_at,
    logSize: row.log_size,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

export interface ArtifactRow {
  id: string;
  task_id: string;
  attempt: number;
  path: string;
  state: string;
  size: number;
  sha256: string;
  created_at: number;
  expires_at: number | null;
}

export function toArtifact(row: ArtifactRow): StoredArtifact {
  return {
    id: row.id,
    taskId: row.task_id,
    attempt: row.attempt,
    path: row.path,
    size: row.size,
    sha256: row.sha256,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
