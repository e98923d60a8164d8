import { errors } from '../errors.js';
import { sha256Hex } from '../ids.js';
import type { Worker } from '../store/types.js';
import type { PipelineDeps } from './deps.js';

/**
 * The worker a bearer token belongs to. Tokens are stored only as their SHA-256, so the lookup is by
 * the hash: the token itself is never compared, stored or logged. A revoked or unknown token is 401.
 */
export async function authenticateWorker(deps: PipelineDeps, token: string | null): Promise<Worker> {
  const worker = token === null ? null : await deps.store.findWorkerByTokenHash(sha256Hex(token));
  if (worker === null) throw errors.workerTokenInvalid();
  return worker;
}
