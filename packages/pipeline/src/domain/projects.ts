import { resolve } from 'node:path';
import { newId, newTriggerSecret, newWorkerToken, sha256Hex } from '../ids.js';
import { errors } from '../errors.js';
import { DuplicateError, type Project, type ProjectChanges, type Visibility, type Worker } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { DEFAULT_REALM } from './policies.js';

export const PROJECT_NAME_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
/** A sign-in realm's slug, as the sign-in service accepts it. */
export const REALM_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
const VARIABLE_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
/** Shorter secrets would mask common substrings of every log (GitLab asks for 8 too). */
export const MIN_SECRET_LENGTH = 8;
const MAX_VARIABLE_BYTES = 64 * 1024;

const invalid = errors.invalidRequest;

/** A local path is stored absolute, so the server finds it whatever its working directory. */
function normalizeLocation(repo: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(repo) ? repo : resolve(repo);
}

function checkVisibility(value: string): Visibility {
  if (value !== 'private' && value !== 'public') throw invalid(`visibility must be 'private' or 'public', got '${value}'`);
  return value;
}

function checkRealm(realm: string): string {
  if (!REALM_SLUG_PATTERN.test(realm)) {
    throw invalid(`realm '${realm}' must be a realm slug (lower-case letters, digits and '-', at most 63, first not '-'), e.g. 'system'`);
  }
  return realm;
}

function checkOwner(owner: string | null): string | null {
  if (owner !== null && (owner.length === 0 || owner.length > 200)) throw invalid('owner must be a user id of 1 to 200 characters');
  return owner;
}

/** A store's DuplicateError is the caller's conflict (409); anything else stays what it was. */
function rethrowDuplicate(message: string): (error: unknown) => never {
  return (error) => {
    throw error instanceof DuplicateError ? errors.duplicate(message) : error;
  };
}

async function requireProject(deps: PipelineDeps, idOrName: string): Promise<Project> {
  const project = await deps.store.findProject(idOrName);
  if (project === null) throw errors.notFound(`no project '${idOrName}'`);
  return project;
}

export async function createProject(
  deps: PipelineDeps,
  input: { name: string; repo: string; visibility?: string; ownerUserId?: string | null; realm?: string },
): Promise<Project> {
  const realm = checkRealm(input.realm ?? DEFAULT_REALM);
  if (!PROJECT_NAME_PATTERN.test(input.name)) {
    throw invalid(`project name '${input.name}' must match ${PROJECT_NAME_PATTERN.source}`);
  }
  if (await deps.store.isProjectKeyTaken(input.name)) throw errors.duplicate(`a project named '${input.name}' already exists`);
  const repo = normalizeLocation(input.repo);
  const problem = await deps.repos.checkLocation(repo);
  if (problem !== null) throw invalid(problem);
  let id = newId();
  // Ids and names share the `:project` URL segment, so an id may never equal an existing name.
  while (await deps.store.isProjectKeyTaken(id)) id = newId();
  const now = deps.clock.now();
  const project: Project = {
    id,
    name: input.name,
    repo,
    visibility: checkVisibility(input.visibility ?? 'private'),
    enabled: true,
    ownerUserId: checkOwner(input.ownerUserId ?? null),
    realm,
    triggerSecret: newTriggerSecret(),
    createdAt: now,
    updatedAt: now,
  };
  // The store checks name and id again inside its insert: another creation may have run since the checks above.
  await deps.store.createProject(project).catch(rethrowDuplicate(`a project named '${input.name}' already exists`));
  return project;
}

export async function updateProject(
  deps: PipelineDeps,
  idOrName: string,
  input: { name?: string; enabled?: boolean; visibility?: string; repo?: string; rotateSecret?: boolean; ownerUserId?: string | null },
): Promise<Project> {
  const project = await requireProject(deps, idOrName);
  const changes: ProjectChanges = {};
  if (input.name !== undefined && input.name !== project.name) {
    if (!PROJECT_NAME_PATTERN.test(input.name)) throw invalid(`project name '${input.name}' must match ${PROJECT_NAME_PATTERN.source}`);
    changes.name = input.name;
  }
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  // null clears the owner: a private project is then readable by administrators only.
  if (input.ownerUserId !== undefined) changes.ownerUserId = checkOwner(input.ownerUserId);
  if (input.visibility !== undefined) changes.visibility = checkVisibility(input.visibility);
  if (input.repo !== undefined) {
    const repo = normalizeLocation(input.repo);
    const problem = await deps.repos.checkLocation(repo);
    if (problem !== null) throw invalid(problem);
    changes.repo = repo;
  }
  if (input.rotateSecret === true) changes.triggerSecret = newTriggerSecret();
  // The store checks a new name against every project's id and name inside its update.
  return deps.store.updateProject(project.id, changes, deps.clock.now()).catch(rethrowDuplicate(`'${input.name ?? ''}' is already a project's name`));
}

export function showProject(deps: PipelineDeps, idOrName: string): Promise<Project> {
  return requireProject(deps, idOrName);
}

export async function setVariable(deps: PipelineDeps, idOrName: string, name: string, value: string, secret: boolean): Promise<void> {
  const project = await requireProject(deps, idOrName);
  if (!VARIABLE_NAME_PATTERN.test(name)) throw invalid(`variable name '${name}' must match ${VARIABLE_NAME_PATTERN.source}`);
  if (name === 'CI' || name.startsWith('PIPELINE_')) throw invalid(`'${name}' is set by the service and cannot be a variable`);
  if (Buffer.byteLength(value) > MAX_VARIABLE_BYTES) throw invalid('a variable value is limited to 64 KiB');
  if (secret && value.length < MIN_SECRET_LENGTH) {
    throw invalid(`a secret variable must be at least ${MIN_SECRET_LENGTH} characters, so masking it cannot mangle logs`);
  }
  await deps.store.setVariable(project.id, { name, value, secret }, deps.clock.now());
}

export async function unsetVariable(deps: PipelineDeps, idOrName: string, name: string): Promise<void> {
  const project = await requireProject(deps, idOrName);
  if (!(await deps.store.unsetVariable(project.id, name))) throw errors.notFound(`project '${project.name}' has no variable '${name}'`);
}

export async function createWorker(
  deps: PipelineDeps,
  input: { name: string; ownerUserId?: string | null },
): Promise<{ worker: Worker; token: string }> {
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/.test(input.name)) {
    throw invalid(`worker name '${input.name}' must match ^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`);
  }
  const token = newWorkerToken();
  const worker: Worker = {
    id: newId(),
    name: input.name,
    ownerUserId: checkOwner(input.ownerUserId ?? null),
    createdAt: deps.clock.now(),
    revokedAt: null,
    lastSeenAt: null,
  };
  // The name check is the store's, in the same transaction as the insert, so two creations cannot both pass it.
  await deps.store.createWorker(worker, sha256Hex(token)).catch(rethrowDuplicate(`a worker named '${input.name}' already exists`));
  return { worker, token };
}

export async function revokeWorker(deps: PipelineDeps, idOrName: string): Promise<Worker> {
  const worker = await deps.store.findWorker(idOrName);
  if (worker === null) throw errors.notFound(`no worker '${idOrName}'`);
  await deps.store.revokeWorker(worker.id, deps.clock.now());
  return { ...worker, revokedAt: worker.revokedAt ?? deps.clock.now() };
}
