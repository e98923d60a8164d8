import { errors, type ServiceError } from '../errors.js';
import type { Task, Worker } from '../store/types.js';
import type { PipelineDeps } from './deps.js';
import { eventKeys } from './events.js';
import { findHeldTask } from './worker-protocol.js';

/** Where an attempt's log is kept. One blob per attempt, so a retry starts a clean log and keeps the old one. */
export function logKey(taskId: string, attempt: number): string {
  return `logs/${taskId}/${attempt}.log`;
}

/** Serialises appends per task so two chunks of one log never interleave their offset checks. */
export class TaskLocks {
  private tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, body: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const current = previous.then(body, body);
    const tail = current.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await current;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/**
 * Appends a chunk at `offset`. An overlap with what is stored is trimmed (a retried chunk is safe); a gap
 * is refused with 409 and `expected_offset`; a log past the limit is refused with 413. The stored size
 * in the database is the truth: a write that was not recorded is overwritten by the next one.
 */
export async function appendLog(
  deps: PipelineDeps,
  locks: TaskLocks,
  worker: Worker,
  taskId: string,
  offset: number,
  chunk: Buffer,
): Promise<number> {
  return locks.run(taskId, async () => {
    const task = await findHeldTask(deps, worker, taskId);
    if (task === null) throw errors.notFound();
    const size = task.logSize;
    if (offset > size) {
      throw errors.logGap(size);
    }
    const fresh = chunk.subarray(size - offset);
    if (fresh.length === 0) return size;
    if (size + fresh.length > deps.config.maxLogBytes) {
      throw errors.logFull(deps.config.maxLogBytes);
    }
    await deps.blobs.append(logKey(task.id, task.attempt), size, fresh);
    const newSize = size + fresh.length;
    if (!(await deps.store.setLogSize(task.id, worker.id, task.attempt, size, newSize))) throw await refusal(deps, worker, task);
    deps.events.publish(eventKeys.task(task.id));
    return newSize;
  });
}

/**
 * Why a recorded size was not moved on: the task is no longer held at that attempt (404), or another
 * append moved the size first (409, so the worker resends from the size now recorded). The second needs
 * another writer of the same log outside this process's locks, such as a second service instance.
 */
async function refusal(deps: PipelineDeps, worker: Worker, task: Task): Promise<ServiceError> {
  const now = await findHeldTask(deps, worker, task.id);
  if (now === null || now.attempt !== task.attempt) return errors.notFound();
  return errors.logGap(now.logSize);
}

/** Which attempt's log a reader gets: the one asked for, else the current one. */
export function chooseLogAttempt(task: Task, requested: number | null): { attempt: number; size: number } | null {
  if (requested === null || requested === task.attempt) return { attempt: task.attempt, size: task.logSize };
  if (requested < 1 || requested > task.attempt) return null;
  return { attempt: requested, size: -1 };
}
