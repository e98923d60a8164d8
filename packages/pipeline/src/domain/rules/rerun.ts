import type { TaskState } from '@conveyor/protocol';

/** What deciding a re-run of a job's failed tasks needs to know about each task. */
export interface RerunCandidate {
  id: string;
  name: string;
  state: TaskState;
  needs: string[];
  /** Claims so far; the next claim makes it `attempt + 1`. */
  attempt: number;
  /** How many attempts one run of the task gets (the pipeline file's `retries` + 1). */
  attemptsPerRun: number;
}

/** A task that runs again: its state until it is claimed, and its extended attempt limit. */
export interface RerunChange {
  state: 'waiting' | 'blocked';
  maxAttempts: number;
}

/**
 * Which tasks of a finished job run again when its failed tasks are re-run: every failed or canceled
 * task, and every skipped task downstream of one (transitively); the others keep their results. A
 * re-run task waits when none of its needs runs again, else it is blocked until they succeed. Its
 * attempt limit becomes its attempts so far plus one run's worth, so `retries` still apply to the
 * re-run. Returns nothing when no task failed or was canceled.
 */
export function planFailedRerun(tasks: readonly RerunCandidate[]): Map<string, RerunChange> {
  const rerun = new Set(tasks.filter((task) => task.state === 'failure' || task.state === 'canceled').map((task) => task.name));
  let grew = rerun.size > 0;
  // Each pass adds the skipped tasks one layer further down; a job has at most 1000 tasks.
  while (grew) {
    grew = false;
    for (const task of tasks) {
      if (task.state === 'skipped' && !rerun.has(task.name) && task.needs.some((need) => rerun.has(need))) {
        rerun.add(task.name);
        grew = true;
      }
    }
  }
  const changes = new Map<string, RerunChange>();
  for (const task of tasks) {
    if (!rerun.has(task.name)) continue;
    changes.set(task.id, {
      state: task.needs.some((need) => rerun.has(need)) ? 'blocked' : 'waiting',
      maxAttempts: task.attempt + task.attemptsPerRun,
    });
  }
  return changes;
}
