import { errors } from '../errors.js';
import { classifyLocation } from '../git/locations.js';
import { redactUrlCredentials } from '../git/redact.js';
import type { Project, ProjectListing } from '../store/types.js';
import { artifactKey } from './artifacts.js';
import type { PipelineDeps } from './deps.js';
import { isRealmAdmin, mayManageHere, mayUseLocalRepository, mayViewHere, type SessionViewer } from './policies.js';
import { createProject, PROJECT_NAME_PATTERN, setVariable, unsetVariable, updateProject } from './projects.js';

export const PAGE_LIMIT_MAX = 100;
export const PAGE_LIMIT_DEFAULT = 50;

/** A listing as the viewer may see it: a repository URL's credentials only for those who may manage the project. */
export interface ProjectView extends ProjectListing {
  manageable: boolean;
}

function viewAs(viewer: SessionViewer, listing: ProjectListing): ProjectView {
  const manageable = mayManageHere(viewer, listing.project);
  const project = manageable ? listing.project : { ...listing.project, repo: redactUrlCredentials(listing.project.repo) };
  return { project, lastJob: listing.lastJob, manageable };
}

export interface ProjectPage {
  listings: ProjectView[];
  /** Opaque; null on the last page. */
  nextCursor: string | null;
}

/** A cursor is the last name of the page before, base64url-encoded so callers treat it as opaque. */
function encodeCursor(name: string): string {
  return Buffer.from(name, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const name = /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!PROJECT_NAME_PATTERN.test(name)) throw errors.invalidRequest('cursor is not one this service gave out; start again without it');
  return name;
}

/**
 * The projects of the viewer's realm they may manage (all of them for an administrator) plus the
 * public ones, by name, with each one's newest job: one store query per page.
 */
export async function listProjectsFor(deps: PipelineDeps, viewer: SessionViewer, page: { cursor: string | null; limit: number }): Promise<ProjectPage> {
  const afterName = page.cursor === null ? null : decodeCursor(page.cursor);
  const listings = await deps.store.listProjectPage({
    realm: viewer.realm,
    all: isRealmAdmin(viewer),
    ownerUserId: viewer.userId,
    afterName,
    limit: page.limit + 1,
  });
  const shown = listings.slice(0, page.limit);
  const last = shown.at(-1);
  return { listings: shown.map((listing) => viewAs(viewer, listing)), nextCursor: listings.length > page.limit && last !== undefined ? encodeCursor(last.project.name) : null };
}

/** A project the viewer may manage here; anything else (absent, another realm's, someone else's) is 404. */
export async function requireManageable(deps: PipelineDeps, viewer: SessionViewer, key: string): Promise<Project> {
  const project = await deps.store.findProject(key);
  if (project === null || !mayManageHere(viewer, project)) throw errors.notFound();
  return project;
}

/** A project the viewer may see here (manage, or public in the realm); anything else is 404. */
export async function viewProject(deps: PipelineDeps, viewer: SessionViewer, key: string): Promise<ProjectView> {
  const project = await deps.store.findProject(key);
  if (project === null || !mayViewHere(viewer, project)) throw errors.notFound();
  // The newest job is the list's; a single read points to the jobs list instead.
  return viewAs(viewer, { project, lastJob: null });
}

function isLocalLocation(repo: string): boolean {
  const location = classifyLocation(repo);
  return location.kind === 'path' || (location.kind === 'url' && location.url.startsWith('file:'));
}

function checkRepositoryAllowed(viewer: SessionViewer, repo: string): void {
  if (isLocalLocation(repo) && !mayUseLocalRepository(viewer)) {
    throw errors.invalidRequest('repo must be an https://, http:// or ssh:// URL; a path on the server (or file://) needs the system-admin role');
  }
}

export interface ProjectInput {
  name: string;
  repo: string;
  visibility?: string;
}

/** A project owned by the viewer, under the admin CLI's rules. */
export async function createOwnedProject(deps: PipelineDeps, viewer: SessionViewer, input: ProjectInput): Promise<Project> {
  checkRepositoryAllowed(viewer, input.repo);
  return createProject(deps, { ...input, ownerUserId: viewer.userId, realm: viewer.realm });
}

export interface ProjectChangeInput {
  name?: string;
  repo?: string;
  visibility?: string;
  enabled?: boolean;
}

export async function changeProject(deps: PipelineDeps, viewer: SessionViewer, key: string, input: ProjectChangeInput): Promise<Project> {
  const project = await requireManageable(deps, viewer, key);
  if (input.repo !== undefined) checkRepositoryAllowed(viewer, input.repo);
  return updateProject(deps, project.id, input);
}

/** A new trigger secret, in the answer once; the old one stops working at once. */
export async function rotateTriggerSecret(deps: PipelineDeps, viewer: SessionViewer, key: string): Promise<Project> {
  const project = await requireManageable(deps, viewer, key);
  return updateProject(deps, project.id, { rotateSecret: true });
}

/**
 * Removes the project and everything it holds. The rows go in one store transaction; the bytes
 * (artifacts, logs) after it. A crash in between leaves only bytes no record names, which the
 * start-up sweep removes (removeUnsettledArtifacts, removeOrphanLogs).
 */
export async function deleteProject(deps: PipelineDeps, viewer: SessionViewer, key: string): Promise<Project> {
  const project = await requireManageable(deps, viewer, key);
  const removed = await deps.store.deleteProject(project.id);
  if (removed === null) throw errors.notFound();
  for (const id of removed.artifactIds) await deps.blobs.delete(artifactKey(id));
  for (const taskId of removed.taskIds) await removeTaskLogs(deps, taskId);
  return project;
}

async function removeTaskLogs(deps: PipelineDeps, taskId: string): Promise<void> {
  for (const key of await deps.blobs.list(`logs/${taskId}/`)) await deps.blobs.delete(key);
}

/**
 * Removes the logs of tasks that no longer exist (a project removal cut off by a crash, or an append
 * that raced with it). Run at start-up, before requests. Returns how many tasks' logs went.
 */
export async function removeOrphanLogs(deps: PipelineDeps): Promise<number> {
  const taskIds = new Set((await deps.blobs.list('logs/')).map((key) => key.split('/')[1] ?? ''));
  let removed = 0;
  for (const taskId of taskIds) {
    if (taskId === '' || (await deps.store.getTask(taskId)) !== null) continue;
    await removeTaskLogs(deps, taskId);
    removed += 1;
  }
  return removed;
}

/** A variable as the management API shows it: a secret's value never leaves the service. */
export interface VariableListing {
  name: string;
  secret: boolean;
  value: string | null;
}

export async function listVariablesOf(deps: PipelineDeps, viewer: SessionViewer, key: string): Promise<VariableListing[]> {
  const project = await requireManageable(deps, viewer, key);
  return (await deps.store.listVariables(project.id)).map((variable) => ({ name: variable.name, secret: variable.secret, value: variable.secret ? null : variable.value }));
}

export async function putVariable(deps: PipelineDeps, viewer: SessionViewer, key: string, variable: { name: string; value: string; secret: boolean }): Promise<VariableListing> {
  const project = await requireManageable(deps, viewer, key);
  await setVariable(deps, project.id, variable.name, variable.value, variable.secret);
  return { name: variable.name, secret: variable.secret, value: variable.secret ? null : variable.value };
}

export async function deleteVariable(deps: PipelineDeps, viewer: SessionViewer, key: string, name: string): Promise<void> {
  const project = await requireManageable(deps, viewer, key);
  await unsetVariable(deps, project.id, name);
}
