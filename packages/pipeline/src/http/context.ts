import type { PipelineDeps } from '../domain/deps.js';
import type { TaskLocks } from '../domain/logs.js';
import type { SessionResolver } from './credentials.js';

/** What route handlers share: the domain's dependencies plus the HTTP-only parts. */
export interface HttpContext {
  deps: PipelineDeps;
  sessions: SessionResolver;
  logLocks: TaskLocks;
  /** Fires when the server shuts down, so long-polling claims let go at once. */
  shutdown: AbortSignal;
}
