import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../ids.js';
import type { Project } from '../store/types.js';

/** A signed-in person, as the sign-in service reports them. */
export interface SessionViewer {
  userId: string;
  isAdmin: boolean;
}

/** Finds the session behind a request (the sign-in service's cookie); none until that link is made. */
export interface SessionResolver {
  resolve(request: FastifyRequest): Promise<SessionViewer | null>;
}

export const noSessions: SessionResolver = { resolve: async () => null };

/** Who is reading: each kind of caller the spec names. Workers never read through these routes. */
export type Reader =
  | { kind: 'anonymous' }
  | { kind: 'trigger'; projectId: string }
  | { kind: 'session'; viewer: SessionViewer };

/** `X-Hub-Signature-256: sha256=<hex>` over the exact bytes, compared in constant time. */
export function hasValidSignature(request: FastifyRequest, body: Buffer, secret: string): boolean {
  const header = request.headers['x-hub-signature-256'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(body).digest('hex');
  return safeEqual(header.slice('sha256='.length).toLowerCase(), expected);
}

/** The plain-secret headers a push may carry instead: `X-Git-Token` and GitLab's `X-Gitlab-Token`. */
export function hasValidPlainToken(request: FastifyRequest, secret: string): boolean {
  return ['x-git-token', 'x-gitlab-token'].some((name) => {
    const value = request.headers[name];
    return typeof value === 'string' && safeEqual(value, secret);
  });
}

/**
 * Identifies a reader of a project's resources: a valid signature over the empty body makes it the
 * project's trigger-secret holder, a session makes it that person, anything else is anonymous.
 */
export async function identifyReader(request: FastifyRequest, project: Project | null, sessions: SessionResolver): Promise<Reader> {
  if (project !== null && hasValidSignature(request, Buffer.alloc(0), project.triggerSecret)) {
    return { kind: 'trigger', projectId: project.id };
  }
  const viewer = await sessions.resolve(request);
  return viewer === null ? { kind: 'anonymous' } : { kind: 'session', viewer };
}

function mayManage(reader: Reader, project: Project): boolean {
  return reader.kind === 'session' && (reader.viewer.isAdmin || reader.viewer.userId === project.ownerUserId);
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
