import type { Agent } from 'node:http';
import type { ClaimedTaskRef, PipelineApi } from './api.js';
import { say } from './progress.js';

/**
 * Claims one task and keeps it held with heartbeats (at half the interval the service asks for) while
 * `body` runs, so a long upload never outlives its lease.
 */
export async function withHeldTask<T>(api: PipelineApi, agent: Agent, body: (task: ClaimedTaskRef) => Promise<T>): Promise<T> {
  const task = await api.claim(agent);
  if (task === null) throw new Error('no task to claim: the queue is empty');
  const timer = setInterval(() => {
    api.heartbeat(agent, task).catch((error: unknown) => say(`  heartbeat failed: ${String(error)}`));
  }, Math.max(1, task.heartbeatInterval) * 500);
  try {
    return await body(task);
  } finally {
    clearInterval(timer);
  }
}
