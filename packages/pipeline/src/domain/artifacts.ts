import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError } from '../errors.js';
import { newId } from '../ids.js';
import type { StoredArtifact, Worker } from '../store/types.js';
import { sanitizeArtifactPath } from './artifact-path.js';
import type { PipelineDeps } from './deps.js';
import { createMeasuringWriter } from './measure-stream.js';
import { findHeldTask } from './worker-protocol.js';

export function artifactFilePath(dataPath: string, artifactId: string): string {
  return join(dataPath, 'artifacts', artifactId);
}

export interface ArtifactUpload {
  rawPath: string | undefined;
  declaredLength: number;
  body: Readable;
  /** False once the connection broke or carried bytes past the declared length; nothing is kept then. */
  isConnectionIntact: () => boolean;
}

/**
 * Streams an uploaded file to a temporary file while hashing it, checks it is exactly the declared
 * length, then moves it into place and records it (replacing an earlier upload of the same path).
 * Any failure leaves nothing behind.
 */
export async function receiveArtifact(deps: PipelineDeps, worker: Worker, taskId: string, upload: ArtifactUpload): Promise<StoredArtifact> {
  const task = await findHeldTask(deps, worker, taskId);
  if (task === null) throw new ServiceError(404, 'not found');
  const path = upload.rawPath === undefined ? null : sanitizeArtifactPath(upload.rawPath);
  if (path === null) throw new ServiceError(400, 'X-Artifact-Path must name a file (percent-encoded UTF-8, no control characters)');

  const id = newId();
  const temporary = join(deps.config.dataPath, 'tmp', `${id}.upload`);
  await mkdir(join(deps.config.dataPath, 'tmp'), { recursive: true });
  const { writer, measurement } = createMeasuringWriter(await open(temporary, 'wx'), upload.declaredLength);
  try {
    await pipeline(upload.body, writer);
  } catch {
    // The writer stops its thread and closes the file after the pipeline has already failed: wait for it.
    if (!writer.closed) await new Promise((resolve) => writer.once('close', resolve));
    await rm(temporary, { force: true });
    // A disk that cannot take the bytes is the service's failure (500, worth a retry), not the body's.
    if (measurement.storageFailure !== null) throw measurement.storageFailure;
    throw new ServiceError(400, `the body ended after ${measurement.bytes} of ${upload.declaredLength} declared bytes`);
  }
  if (measurement.bytes !== upload.declaredLength || !upload.isConnectionIntact()) {
    await rm(temporary, { force: true });
    throw new ServiceError(400, `the body does not match its declared length of ${upload.declaredLength} bytes`);
  }

  const artifact: StoredArtifact = {
    id,
    taskId: task.id,
    path,
    size: measurement.bytes,
    sha256: await measurement.sha256(),
    createdAt: deps.clock.now(),
    expiresAt: null,
  };
  const destination = artifactFilePath(deps.config.dataPath, id);
  await mkdir(join(deps.config.dataPath, 'artifacts'), { recursive: true });
  await rename(temporary, destination);
  const { stored, replaced } = await deps.store.putArtifact(artifact, worker.id);
  if (!stored) {
    await rm(destination, { force: true });
    throw new ServiceError(404, 'not found');
  }
  if (replaced !== null) await rm(artifactFilePath(deps.config.dataPath, replaced.id), { force: true });
  return artifact;
}
