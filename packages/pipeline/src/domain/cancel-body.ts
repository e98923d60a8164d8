import { errors } from '../errors.js';
import type { Job } from '../store/types.js';

/**
 * A cancel must be signed over a body that names the job, `{"job": "<job id>"}`. The read signature is
 * an HMAC of the empty body and travels with every signed read, so it must never be enough to cancel:
 * an empty body is 401, as an unsigned one is. A body that is authentic but names another job (or none)
 * is the caller's mistake, not a forgery: 400, saying which body is wanted.
 */
export function checkCancelBody(raw: Buffer, job: Job): void {
  if (raw.length === 0) {
    throw errors.cancelUnsigned();
  }
  let named: unknown;
  try {
    named = (JSON.parse(raw.toString('utf8')) as { job?: unknown } | null)?.job;
  } catch {
    throw errors.cancelBodyInvalid('the body is not valid JSON; send {"job": "<job id>"}');
  }
  if (typeof named !== 'string') throw errors.cancelBodyInvalid('the body must be {"job": "<job id>"}, naming the job by its id');
  if (named !== job.id) throw errors.cancelBodyInvalid('the body names another job; send {"job": "<job id>"} with the id of the job in the path');
}
