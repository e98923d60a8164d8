import type { Project, Worker } from '../store/types.js';

/** A signed-in person in the realm the request's Host selects. */
export interface SessionViewer {
  userId: string;
  username: string;
  realm: string;
  roles: string[];
}

/** The roles that let a person manage every project of their realm. */
export const ADMIN_ROLES: readonly string[] = ['realm-admin', 'system-admin'];

/** The realm a project belongs to when none is given (the sign-in service's system realm). */
export const DEFAULT_REALM = 'system';

/** The realm a project belongs to. */
export function realmOfProject(project: Project): string {
  return project.realm;
}

/** Whether the viewer administers their realm (`realm-admin` or `system-admin`). */
export function isRealmAdmin(viewer: SessionViewer): boolean {
  return viewer.roles.some((role) => ADMIN_ROLES.includes(role));
}

/** Who is reading: each kind of caller the spec names. Workers never read through these routes. */
export type Reader =
  | { kind: 'anonymous' }
  | { kind: 'trigger'; projectId: string }
  | { kind: 'session'; viewer: SessionViewer };

/**
 * Whether a request proves it holds a secret: an HMAC of the body it carries (or, for pushes, the plain
 * secret in a header). The HTTP layer checks the headers; the domain knows which secret to ask about.
 */
export interface SecretProof {
  proves(secret: string): boolean;
}

/** The owner of a project, or an administrator of its realm. */
export function mayManage(reader: Reader, project: Project): boolean {
  return reader.kind === 'session' && viewerMayManage(reader.viewer, project);
}

/**
 * "A session that may manage the project": its owner, or an administrator of the project's realm. An
 * administrator of another realm is nobody here (roles are per realm).
 */
export function viewerMayManage(viewer: SessionViewer, project: Project): boolean {
  if (project.ownerUserId !== null && viewer.userId === project.ownerUserId) return true;
  return viewer.realm === project.realm && isRealmAdmin(viewer);
}

/**
 * A project is served only on its realm's hosts: `callerRealm` is the realm the request's Host selects
 * (null for a host no realm has). Elsewhere it does not exist (404), whoever asks.
 */
export function isServedInRealm(project: Project, callerRealm: string | null): boolean {
  return callerRealm !== null && callerRealm === project.realm;
}

/** Job read, scoped task read and log read: public, the project's trigger secret, or a session that may manage it. */
export function mayReadJob(reader: Reader, project: Project): boolean {
  return (
    project.visibility === 'public' ||
    (reader.kind === 'trigger' && reader.projectId === project.id) ||
    mayManage(reader, project)
  );
}

/** `GET /tasks/:task`: public or session; a signature on a bare path proves nothing. */
export function mayReadBareTask(reader: Reader, project: Project): boolean {
  return project.visibility === 'public' || mayManage(reader, project);
}

/** Artifact download: public, else only the owner or an administrator. */
export function mayDownloadArtifact(reader: Reader, project: Project): boolean {
  return project.visibility === 'public' || mayManage(reader, project);
}

/** Creating and cancelling jobs: only a holder of the project's trigger secret. */
export function mayTrigger(proof: SecretProof, project: Project): boolean {
  return proof.proves(project.triggerSecret);
}

/**
 * Management of a project through the API: the request's realm must be the project's (a project is
 * served only on its realm's hosts), and the viewer must be one who may manage it.
 */
export function mayManageHere(viewer: SessionViewer, project: Project): boolean {
  return realmOfProject(project) === viewer.realm && viewerMayManage(viewer, project);
}

/** Reading a project's settings (never its secret): those who may manage it, and anyone signed in for a public one of the realm. */
export function mayViewHere(viewer: SessionViewer, project: Project): boolean {
  return realmOfProject(project) === viewer.realm && (project.visibility === 'public' || viewerMayManage(viewer, project));
}

/**
 * Workers serve every realm's projects, so seeing and revoking all of them is for administrators of
 * the `system` realm (and `system-admin` anywhere); everyone else manages the workers they own.
 */
export function mayManageAllWorkers(viewer: SessionViewer): boolean {
  return viewer.roles.includes('system-admin') || (viewer.realm === 'system' && isRealmAdmin(viewer));
}

export function mayManageWorker(viewer: SessionViewer, worker: Worker): boolean {
  return mayManageAllWorkers(viewer) || (worker.ownerUserId !== null && worker.ownerUserId === viewer.userId);
}

/**
 * A repository on the server's own disk (a path or file://) lets its project read whatever git
 * repository the service can read, so only a `system-admin` may name one; others give a remote URL.
 */
export function mayUseLocalRepository(viewer: SessionViewer): boolean {
  return viewer.roles.includes('system-admin');
}
