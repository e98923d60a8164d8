import type { Job, Project, StoredArtifact, Task } from '../store/types.js';

/** Response shapes, field for field as the spec lists them (plus a few read-only extras on the job). */
export function presentJob(job: Job, project: Project) {
  return {
    id: job.id,
    number: job.number,
    state: job.state,
    ref: job.ref,
    head_sha: job.headSha,
    commit_message: job.commitMessage,
    visibility: project.visibility,
    created_at: job.createdAt,
    finished_at: job.finishedAt,
    trigger: job.trigger,
    actor: job.actor,
    base: job.base,
  };
}

/** A task in a job read; `waiting_reason` says why a waiting task has no worker that could take it. */
export function presentTaskSummary(task: Task, waitingReasons: ReadonlyMap<string, string> = new Map()) {
  return {
    id: task.id,
    name: task.name,
    base_name: task.baseName,
    needs: task.needs,
    matrix: task.matrix,
    state: task.state,
    exit_code: task.exitCode,
    arch: task.arch,
    attempt: task.attempt,
    worker_name: task.workerName,
    started_at: task.startedAt,
    finished_at: task.finishedAt,
    waiting_reason: waitingReasons.get(task.id) ?? null,
  };
}

/** The public task read: deliberately without `env`, `services` and `script`. */
export function presentTask(task: Task, job: Job, project: Project) {
  return {
    id: task.id,
    name: task.name,
    base_name: task.baseName,
    state: task.state,
    arch: task.arch,
    image: task.image,
    attempt: task.attempt,
    max_attempts: task.maxAttempts,
    allow_failure: task.allowFailure,
    exit_code: task.exitCode,
    error: task.error,
    worker_name: task.workerName,
    timeout: task.timeout,
    workdir: task.workdir,
    needs: task.needs,
    matrix: task.matrix,
    artifact_paths: task.artifactPaths,
    log_size: task.logSize,
    created_at: task.createdAt,
    started_at: task.startedAt,
    finished_at: task.finishedAt,
    project_id: project.id,
    job_id: job.id,
    job_number: job.number,
    ref: job.ref,
    sha: job.headSha,
    visibility: project.visibility,
  };
}

export function artifactUrl(base: string, project: Project, job: Job, artifact: StoredArtifact): string {
  const segment = encodeURIComponent;
  return `${base}/api/v1/projects/${segment(project.id)}/jobs/${segment(job.id)}/tasks/${segment(artifact.taskId)}/artifacts/${segment(artifact.id)}`;
}

export function presentArtifact(artifact: StoredArtifact, url: string) {
  return {
    id: artifact.id,
    path: artifact.path,
    size: artifact.size,
    sha256: artifact.sha256,
    created_at: artifact.createdAt,
    expires_at: artifact.expiresAt,
    url,
  };
}
