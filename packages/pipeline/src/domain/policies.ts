import type { Project } from '../store/types.js';

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

/**
 * "A session that may manage the project": its owner, or an administrator of the project's realm. An
 * administrator of another realm is nobody here (roles are per realm).
 */
export function sessionMayManage(viewer: SessionViewer, project: Project): boolean {
  if (project.ownerUserId !== null && viewer.userId === project.ownerUserId) return true;
  return viewer.realm === project.realm && viewer.roles.some((role) => ADMIN_ROLES.includes(role));
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
  return reader.kind === 'session' && sessionMayManage(reader.viewer, project);
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
