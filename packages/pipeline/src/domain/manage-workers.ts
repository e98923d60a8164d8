import { errors } from '../errors.js';
import type { Worker, WorkerActivity } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { mayManageAllWorkers, mayManageWorker, type SessionViewer } from './policies.js';
import { createWorker, revokeWorker } from './projects.js';

/**
 * A worker not heard from for this long is `offline`. A waiting worker calls at least every 60 s (the
 * longest claim wait) and a busy one heartbeats every few seconds; the last-seen write is skipped
 * within 5 s. 90 s is past all of those.
 */
export const OFFLINE_AFTER_MS = 90_000;

export type WorkerState = 'idle' | 'busy' | 'offline';

export interface WorkerStatus extends WorkerActivity {
  state: WorkerState;
}

/**
 * `busy` while it holds a task (running, its lease not yet lapsed into a requeue by the sweep), else
 * `offline` when not seen within OFFLINE_AFTER_MS (or never), else `idle`.
 */
export function decideWorkerState(activity: WorkerActivity, now: number): WorkerState {
  if (activity.heldTask !== null) return 'busy';
  const seen = activity.worker.lastSeenAt;
  return seen === null || now - seen > OFFLINE_AFTER_MS ? 'offline' : 'idle';
}

/** Every live worker for an administrator of workers; the viewer's own for everyone else. */
export async function listWorkersFor(deps: PipelineDeps, viewer: SessionViewer): Promise<WorkerStatus[]> {
  const activities = await deps.store.listWorkerActivity(mayManageAllWorkers(viewer) ? null : viewer.userId);
  const now = deps.clock.now();
  return activities.map((activity) => ({ ...activity, state: decideWorkerState(activity, now) }));
}

/** A worker owned by the viewer (it takes only the viewer's projects' tasks), under the admin CLI's rules. */
export function createOwnedWorker(deps: PipelineDeps, viewer: SessionViewer, input: { name: string }): Promise<{ worker: Worker; token: string }> {
  return createWorker(deps, { name: input.name, ownerUserId: viewer.userId });
}

/** Revokes a live worker the viewer may manage; any other (absent, revoked, someone else's) is 404. */
export async function revokeManagedWorker(deps: PipelineDeps, viewer: SessionViewer, id: string): Promise<Worker> {
  const worker = await deps.store.findWorker(id);
  if (worker === null || worker.id !== id || worker.revokedAt !== null || !mayManageWorker(viewer, worker)) throw errors.notFound();
  return revokeWorker(deps, worker.id);
}
