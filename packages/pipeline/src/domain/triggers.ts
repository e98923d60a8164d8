import { errors } from '../errors.js';
import type { Job, Project, Task } from '../store/types.js';
import { checkCancelBody } from './cancel-body.js';
import type { PipelineDeps } from './deps.js';
import { publishJobChange } from './events.js';
import { mayTrigger, type SecretProof } from './policies.js';
import type { JobRef } from './reads.js';
import { findProjectInRealm } from './realm-scope.js';

/**
 * Whether a trigger names a known project of the caller's realm (the one its Host selects): what can be
 * refused before a body is read.
 */
export async function isKnownProject(deps: PipelineDeps, projectKey: string, callerRealm: string | null): Promise<boolean> {
  return (await findProjectInRealm(deps, projectKey, callerRealm)) !== null;
}

/**
 * Unknown project (or one of another realm) 404, then a missing or wrong signature 401, then a disabled
 * project 409: the spec's order.
 */
export async function authorizeTrigger(deps: PipelineDeps, projectKey: string, proof: SecretProof, callerRealm: string | null): Promise<Project> {
  const project = await findProjectInRealm(deps, projectKey, callerRealm);
  if (project === null) throw errors.notFound();
  if (!mayTrigger(proof, project)) throw errors.signatureInvalid();
  if (!project.enabled) throw errors.projectDisabled();
  return project;
}

/**
 * Cancels a job on behalf of its project's trigger-secret holder, whose signed body must name the job
 * (checkCancelBody). A disabled project's jobs can still be canceled. Returns the job and its tasks after.
 */
export async function cancelJobByTrigger(
  deps: PipelineDeps,
  ref: JobRef,
  proof: SecretProof,
  body: Buffer,
  callerRealm: string | null,
): Promise<{ project: Project; job: Job; tasks: Task[] }> {
  const project = await findProjectInRealm(deps, ref.project, callerRealm);
  if (project === null) throw errors.notFound();
  if (!mayTrigger(proof, project)) throw errors.signatureInvalid();
  const job = await deps.store.findJob(project.id, ref.job);
  if (job === null) throw errors.notFound();
  checkCancelBody(body, job);
  const canceled = await deps.store.cancelJob(job.id, deps.clock.now());
  publishJobChange(deps.events, canceled);
  return { project, job: canceled, tasks: await deps.store.listTasksOfJob(job.id) };
}
