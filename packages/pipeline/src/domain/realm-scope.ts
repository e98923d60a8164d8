import type { Project } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { isServedInRealm } from './policies.js';

/**
 * The project a path names, as the caller's realm sees it: null when there is none, or when it belongs
 * to another realm (a project is served only on its realm's hosts, so elsewhere it does not exist).
 * Every project-scoped route looks its project up through here.
 */
export async function findProjectInRealm(deps: PipelineDeps, projectKey: string, callerRealm: string | null): Promise<Project | null> {
  const project = await deps.store.findProject(projectKey);
  return project !== null && isServedInRealm(project, callerRealm) ? project : null;
}
