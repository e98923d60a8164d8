import type { Job } from '../store/types.js';

/**
 * Wakes followers (log and event streams) when something they follow changed. In-process only: one
 * server per data directory makes every change in this process. A notification carries nothing: the
 * follower reads what changed from the store and the blob store, so one that missed a wake (or a
 * restarted server) loses nothing, it only learns later.
 */
export class EventHub {
  private listeners = new Map<string, Set<() => void>>();

  /** Calls `listener` on every publish of `key` until the returned function is called. */
  subscribe(key: string, listener: () => void): () => void {
    let set = this.listeners.get(key);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(key, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(key);
      current?.delete(listener);
      if (current?.size === 0) this.listeners.delete(key);
    };
  }

  publish(key: string): void {
    const set = this.listeners.get(key);
    if (set === undefined) return;
    for (const listener of [...set]) listener();
  }

  /** How many listeners there are (tests check that closed streams let go). */
  get size(): number {
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }
}

export const eventKeys = {
  /** New log bytes of the task. */
  task: (taskId: string) => `task:${taskId}`,
  /** A state change of the job or any of its tasks (which may end an attempt's log). */
  job: (jobId: string) => `job:${jobId}`,
  /** A job of the project was created or changed. */
  project: (projectId: string) => `project:${projectId}`,
};

/** Tells the followers of a job, and of its project, that it changed. */
export function publishJobChange(hub: EventHub, job: Pick<Job, 'id' | 'projectId'>): void {
  hub.publish(eventKeys.job(job.id));
  hub.publish(eventKeys.project(job.projectId));
}
