import type { ProjectView } from '../domain/manage-projects.js';
import type { VariableListing } from '../domain/manage-projects.js';
import type { WorkerStatus } from '../domain/manage-workers.js';
import type { WebhookSetup } from '../domain/webhook-setup.js';
import type { ApiToken, Project, Worker } from '../store/types.js';

/** A project's settings; never its trigger secret (only the create and rotate answers add it). */
export function presentProject(project: Project) {
  return {
    id: project.id,
    name: project.name,
    repo: project.repo,
    visibility: project.visibility,
    enabled: project.enabled,
    owner_user_id: project.ownerUserId,
    created_at: project.createdAt,
    updated_at: project.updatedAt,
  };
}

export function presentProjectView(view: ProjectView) {
  return { ...presentProject(view.project), may_manage: view.manageable };
}

export function presentProjectListing(view: ProjectView) {
  const job = view.lastJob;
  return {
    ...presentProjectView(view),
    last_job: job === null ? null : { id: job.id, number: job.number, state: job.state, ref: job.ref, created_at: job.createdAt },
  };
}

/** The one answer that carries the trigger secret: creation and rotation. */
export function presentProjectWithSecret(project: Project) {
  return { ...presentProject(project), may_manage: true, trigger_secret: project.triggerSecret };
}

export function presentVariable(variable: VariableListing) {
  return variable.secret ? { name: variable.name, secret: true } : { name: variable.name, secret: false, value: variable.value };
}

export function presentWebhookSetup(setup: WebhookSetup) {
  const { steps } = setup;
  return {
    url: setup.url,
    secret_hint: setup.secretHint,
    steps: { git_hook: steps.gitHook, github: steps.github, gitlab: steps.gitlab, gitea: steps.gitea, forgejo: steps.forgejo },
  };
}

export function presentWorker(worker: Worker) {
  return { id: worker.id, name: worker.name, owner_user_id: worker.ownerUserId, created_at: worker.createdAt, last_seen_at: worker.lastSeenAt };
}

export function presentWorkerStatus(status: WorkerStatus) {
  const task = status.heldTask;
  return {
    ...presentWorker(status.worker),
    state: status.state,
    current_task:
      task === null ? null : { id: task.id, name: task.name, project_id: task.projectId, project_name: task.projectName, job_id: task.jobId, job_number: task.jobNumber },
  };
}

export function presentApiToken(token: ApiToken) {
  return { id: token.id, name: token.name, created_at: token.createdAt, last_used_at: token.lastUsedAt };
}
