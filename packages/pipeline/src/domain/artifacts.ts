import type { Readable } from 'node:stream';
import { BodySizeError } from '../blobs/types.js';
import { ServiceError } from '../errors.js';
import { newId } from '../ids.js';
import type { StoredArtifact, Worker } from '../store/types.js';
import { sanitizeArtifactPath } from './artifact-path.js';
import type { PipelineDeps } from './deps.js';
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

/**
 * Streams an uploaded file into the blob store (hashed on the way in), checks it is exactly the
 * declared length, then records it (replacing an earlier upload of the same path). Any failure leaves
 * nothing behind.
 */
export async function receiveArtifact(deps: PipelineDeps, worker: Worker, taskId: string, upload: ArtifactUpload): Promise<StoredArtifact> {
  const task = await findHeldTask(deps, worker, taskId);
  if (task === null) throw new ServiceError(404, 'not found');
  const path = upload.rawPath === undefined ? null : sanitizeArtifactPath(upload.rawPath);
  if (path === null) throw new ServiceError(400, 'X-Artifact-Path must name a file (percent-encoded UTF-8, no control characters)');

  const id = newId();
  const key = artifactKey(id);
  const blob = await deps.blobs.put(key, upload.body, upload.declaredLength).catch((error: unknown) => {
    throw error instanceof BodySizeError ? bodyRefusal(error) : error;
  });
  if (!upload.isConnectionIntact()) {
    await deps.blobs.delete(key);
    throw bodyRefusal(new BodySizeError(blob.size, upload.declaredLength, false));
  }

  const artifact: StoredArtifact = {
    id,
    taskId: task.id,
    path,
    size: blob.size,
    sha256: blob.sha256,
    createdAt: deps.clock.now(),
    expiresAt: null,
  };
  const { stored, replaced } = await deps.store.putArtifact(artifact, worker.id);
  if (!stored) {
    await deps.blobs.delete(key);
    throw new ServiceError(404, 'not found');
  }
  if (replaced !== null) await deps.blobs.delete(artifactKey(replaced.id));
  return artifact;
}

function bodyRefusal(error: BodySizeError): ServiceError {
  return new ServiceError(
    400,
    error.broken
      ? `the body ended after ${error.received} of ${error.expected} declared bytes`
      : `the body does not match its declared length of ${error.expected} bytes`,
  );
}
