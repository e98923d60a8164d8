import type { Project, Task } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { waitingReason } from './rules/waiting-reason.js';
import { MAX_CLAIM_WAIT_SECONDS } from './worker-protocol.js';

/**
 * How long after its last claim or heartbeat a worker counts as connected: three heartbeat intervals,
 * plus the longest a claim may wait for work (an idle worker is quiet for that long between claims).
 */
export function liveWorkerWindowMs(deps: PipelineDeps): number {
  return (deps.config.heartbeatInterval * 3 + MAX_CLAIM_WAIT_SECONDS) * 1000;
}

/** For each waiting task no live worker could take, why; the workers are read once, and only when some task waits. */
export async function findWaitingReasons(deps: PipelineDeps, project: Project, tasks: readonly Task[]): Promise<Map<string, string>> {
  const reasons = new Map<string, string>();
  const waiting = tasks.filter((task) => task.state === 'waiting');
  if (waiting.length === 0) return reasons;
  const offers = await deps.store.listLiveWorkerOffers(deps.clock.now() - liveWorkerWindowMs(deps));
  for (const task of waiting) {
    const reason = waitingReason(task, project.ownerUserId, offers);
    if (reason !== null) reasons.set(task.id, reason);
  }
  return reasons;
}
