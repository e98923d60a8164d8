import type { JobState, TaskState } from '@conveyor/protocol';

/** What the scheduling rules need to know about a task of a job. */
export interface GraphTask {
  id: string;
  name: string;
  state: TaskState;
  allowFailure: boolean;
  needs: string[];
}

const FINAL_STATES: ReadonlySet<TaskState> = new Set(['success', 'failure', 'skipped', 'canceled']);

export function isFinal(state: TaskState): boolean {
  return FINAL_STATES.has(state);
}

/** A need is met by a success, or by a failure its task was allowed to have. */
function meetsNeed(task: GraphTask): boolean {
  return task.state === 'success' || (task.state === 'failure' && task.allowFailure);
}

/** A need can never be met once it failed (without allow_failure), was skipped or canceled. */
function breaksNeed(task: GraphTask): boolean {
  return (task.state === 'failure' && !task.allowFailure) || task.state === 'skipped' || task.state === 'canceled';
}

/**
 * Moves blocked tasks forward after a change in the job: a blocked task whose needs are all met becomes
 * `waiting`; one with a need that can no longer be met becomes `skipped`, and that skip travels
 * downstream. Returns the tasks whose state changed (the input is not modified).
 */
export function settleBlockedTasks(tasks: readonly GraphTask[]): Map<string, TaskState> {
  const byName = new Map(tasks.map((task) => [task.name, { ...task }]));
  const changes = new Map<string, TaskState>();
  let changed = true;
  // Each pass settles at least one more layer of the graph; a job has at most 1000 tasks.
  while (changed) {
    changed = false;
    for (const task of byName.values()) {
      if (task.state !== 'blocked') continue;
      const needs = task.needs.map((name) => byName.get(name)).filter((t): t is GraphTask => t !== undefined);
      let next: TaskState | null = null;
      if (needs.some(breaksNeed)) next = 'skipped';
      else if (needs.every(meetsNeed)) next = 'waiting';
      if (next !== null) {
        task.state = next;
        changes.set(task.id, next);
        changed = true;
      }
    }
  }
  return changes;
}

/** Counts of a job's tasks that decide its state. */
export interface JobTally {
  /** Tasks not yet final: blocked, waiting or running. */
  open: number;
  canceled: number;
  /** Failed without allow_failure, or skipped (which only follows a failure or a cancel). */
  failed: number;
}

export function tallyTasks(tasks: readonly { state: TaskState; allowFailure: boolean }[]): JobTally {
  return {
    open: tasks.filter((task) => !isFinal(task.state)).length,
    canceled: tasks.filter((task) => task.state === 'canceled').length,
    failed: tasks.filter((task) => task.state === 'skipped' || (task.state === 'failure' && !task.allowFailure)).length,
  };
}

/**
 * The job's state from its tasks: `running` until every task is final; then `canceled` when the job
 * was canceled, `failure` when a task failed without allow_failure or was skipped, else `success`.
 */
export function deriveJobState(tally: JobTally, cancelRequested: boolean): JobState {
  if (tally.open > 0) return 'running';
  if (cancelRequested || tally.canceled > 0) return 'canceled';
  if (tally.failed > 0) return 'failure';
  return 'success';
}

/** The state a task starts in when its job is created. */
export function initialTaskState(needs: readonly string[]): TaskState {
  return needs.length === 0 ? 'waiting' : 'blocked';
}
