import type { Readable } from 'node:stream';
import { BodySizeError } from '../blobs/types.js';
import { errors, type ServiceError } from '../errors.js';
import { newId } from '../ids.js';
import type { Job, Project, StoredArtifact, Task, Worker } from '../store/types.js';
import { sanitizeArtifactPath } from './artifact-path.js';
import type { PipelineDeps } from './deps.js';
import { readSecretValues } from './masking.js';
import { findHeldTask } from './worker-protocol.js';

/** Where an artifact's bytes are kept: by its own id, so a replaced upload never overwrites bytes being read. */
export function artifactKey(artifactId: string): string {
  return `artifacts/${artifactId}`;
}

export interface ArtifactUpload {
  rawPath: string | undefined;
  declaredLength: number;
  body: Readable;
  /** False once the connection broke or carried bytes past the declared length; nothing is kept then. */
  isConnectionIntact: () => boolean;
}

/** When an artifact of `task` uploaded at `now` expires: the pipeline file's `expire_in`, else the service's retention. */
export function artifactExpiry(deps: PipelineDeps, task: Task, now: number): number {
  return now + (task.artifactExpireIn ?? deps.config.artifactRetentionSeconds) * 1000;
}

/** A stored upload, with the job and project its download URL is made of (null only if they vanished meanwhile). */
export interface ReceivedArtifact {
  artifact: StoredArtifact;
  job: Job | null;
  project: Project | null;
}

/**
 * Receives one uploaded file. The order is what makes a crash harmless: the limits are checked from
 * the declared length before a byte is read (413); a pending record is written next, so the bytes
 * never exist without a record; the body is streamed into the blob store (hashed on the way in, under
 * a temporary name until complete); then the record is committed, replacing the attempt's artifact of
 * the same path. A crash anywhere leaves at most a temporary file and a pending record, which the
 * start-up sweep removes (removeUnsettledArtifacts). Any refusal leaves nothing.
 */
export async function receiveArtifact(deps: PipelineDeps, worker: Worker, taskId: string, upload: ArtifactUpload): Promise<ReceivedArtifact> {
  const task = await findHeldTask(deps, worker, taskId);
  if (task === null) throw errors.notFound();
  const path = upload.rawPath === undefined ? null : sanitizeArtifactPath(upload.rawPath, await readSecretValues(deps, task.projectId));
  if (path === null) throw errors.invalidRequest('X-Artifact-Path must name a file (percent-encoded UTF-8, no control characters)');
  const { maxArtifactBytes, maxTaskArtifactBytes } = deps.config;
  if (upload.declaredLength > maxArtifactBytes) {
    throw errors.artifactTooLarge(maxArtifactBytes, upload.declaredLength);
  }

  const id = newId();
  const reservation = { id, taskId: task.id, attempt: task.attempt, path, size: upload.declaredLength, createdAt: deps.clock.now() };
  const reserved = await deps.store.reserveArtifact(reservation, worker.id, maxTaskArtifactBytes);
  if (reserved.kind === 'not-held') throw errors.notFound();
  if (reserved.kind === 'over-limit') {
    throw errors.taskArtifactsTooLarge(maxTaskArtifactBytes, reserved.storedBytes, upload.declaredLength);
  }

  const key = artifactKey(id);
  const blob = await deps.blobs.put(key, upload.body, upload.declaredLength).catch(async (error: unknown) => {
    // The blob store left nothing behind; the pending record goes too.
    await deps.store.removeArtifactRecord(id);
    throw error instanceof BodySizeError ? bodyRefusal(error) : error;
  });
  if (!upload.isConnectionIntact()) {
    await discard(deps, id);
    throw bodyRefusal(new BodySizeError(blob.size, upload.declaredLength, false));
  }

  const now = deps.clock.now();
  const { artifact, replaced } = await deps.store.commitArtifact(id, worker.id, {
    size: blob.size,
    sha256: blob.sha256,
    createdAt: now,
    expiresAt: artifactExpiry(deps, task, now),
  });
  if (artifact === null) {
    await discard(deps, id);
    throw errors.notFound();
  }
  if (replaced !== null) await discard(deps, replaced.id);
  return { artifact, job: await deps.store.getJobById(task.jobId), project: await deps.store.findProject(task.projectId) };
}

/** Bytes first, then the record: a crash in between leaves a record the sweep finishes, never a nameless file. */
async function discard(deps: PipelineDeps, id: string): Promise<void> {
  await deps.blobs.delete(artifactKey(id));
  await deps.store.removeArtifactRecord(id);
}

/**
 * Finishes what a crash interrupted, before the server takes requests: uploads that never committed
 * (pending) and removals that never finished (deleting) lose their bytes and records, and files under
 * `artifacts/` that no record names (left by versions that wrote the file before the record) are
 * removed. Artifacts recorded before retention existed get their expiry. Returns what was removed.
 */
export async function removeUnsettledArtifacts(deps: PipelineDeps): Promise<{ records: number; orphanFiles: number }> {
  const unsettled = await deps.store.listUnsettledArtifacts();
  for (const id of unsettled) await discard(deps, id);
  let orphanFiles = 0;
  for (const key of await deps.blobs.list('artifacts/')) {
    const id = key.slice('artifacts/'.length);
    if (!(await deps.store.hasArtifactRecord(id))) {
      await deps.blobs.delete(key);
      orphanFiles += 1;
    }
  }
  await deps.store.assignMissingArtifactExpiry(deps.config.artifactRetentionSeconds * 1000);
  return { records: unsettled.length, orphanFiles };
}

/** Expired artifacts removed per store call, so one sweep never holds a huge result in memory. */
const EXPIRY_BATCH = 500;

/** Removes every artifact whose expiry has passed: bytes first, then the record. Returns how many. */
export async function removeExpiredArtifacts(deps: PipelineDeps): Promise<number> {
  const now = deps.clock.now();
  let removed = 0;
  for (;;) {
    const expired = await deps.store.listExpiredArtifacts(now, EXPIRY_BATCH);
    for (const artifact of expired) await discard(deps, artifact.id);
    removed += expired.length;
    if (expired.length < EXPIRY_BATCH) return removed;
  }
}

/** Whether an artifact is still to be served: an expired one is gone for readers even before the sweep removes it. */
export function isArtifactLive(artifact: StoredArtifact, now: number): boolean {
  return artifact.expiresAt === null || artifact.expiresAt > now;
}

function bodyRefusal(error: BodySizeError): ServiceError {
  return errors.bodyLengthMismatch(error.received, error.expected, error.broken);
}

/** Which attempt's artifacts a reader gets: the one asked for, else the current one; null for an attempt that never was. */
export function chooseArtifactAttempt(task: Task, requested: number | null): number | null {
  if (requested === null) return task.attempt;
  return requested >= 1 && requested <= task.attempt ? requested : null;
}

/** One attempt's stored artifacts that have not expired, by path. */
export async function listLiveArtifacts(deps: PipelineDeps, task: Task, attempt: number): Promise<StoredArtifact[]> {
  const now = deps.clock.now();
  return (await deps.store.listArtifacts(task.id, attempt)).filter((artifact) => isArtifactLive(artifact, now));
}
