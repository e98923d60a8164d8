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

/** Tasks of one job that share a state and an allow_failure flag: what a store can count with GROUP BY. */
export interface TaskGroup {
  state: TaskState;
  allowFailure: boolean;
  /** How many tasks the group stands for; 1 when absent (a list of single tasks). */
  count?: number;
}

/** Which tasks count as failing the job: a failure it was not allowed to have, or a skip. */
export function failsJob(task: { state: TaskState; allowFailure: boolean }): boolean {
  return task.state === 'skipped' || (task.state === 'failure' && !task.allowFailure);
}

/** Counts a job's tasks (or groups of them) into what decides the job's state. */
export function tallyTasks(groups: readonly TaskGroup[]): JobTally {
  const tally: JobTally = { open: 0, canceled: 0, failed: 0 };
  for (const group of groups) {
    const count = group.count ?? 1;
    if (!isFinal(group.state)) tally.open += count;
    if (group.state === 'canceled') tally.canceled += count;
    if (failsJob(group)) tally.failed += count;
  }
  return tally;
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

/** Whether a task that just ended (its current attempt counted) may run again. */
export function hasAttemptsLeft(task: { attempt: number; maxAttempts: number }): boolean {
  return task.attempt < task.maxAttempts;
}

/** How an attempt ended, as the worker reported it or as the service decided when it lapsed. */
export interface AttemptOutcome {
  success: boolean;
  exitCode: number | null;
  error: string | null;
}

/**
 * The state of a held task after its attempt ended: `success`; else `canceled` when its job was
 * canceled meanwhile; else `waiting` again (requeued) while attempts remain; else `failure`.
 */
export function nextStateAfterOutcome(
  task: { attempt: number; maxAttempts: number },
  outcome: Pick<AttemptOutcome, 'success'>,
  cancelRequested: boolean,
): TaskState {
  if (outcome.success) return 'success';
  if (cancelRequested) return 'canceled';
  return hasAttemptsLeft(task) ? 'waiting' : 'failure';
}

/**
 * The outcome recorded for a held task the service takes back: `timeout` once its deadline (its own
 * timeout plus a grace for the worker's report) passed, else `worker lost` (its lease lapsed without a
 * heartbeat). Null while the task is neither lapsed nor past its deadline.
 */
export function lapsedOutcome(task: { leaseExpiresAt: number | null; deadlineAt: number | null }, now: number): AttemptOutcome | null {
  if (task.deadlineAt !== null && task.deadlineAt <= now) return { success: false, exitCode: null, error: 'timeout' };
  if (task.leaseExpiresAt !== null && task.leaseExpiresAt <= now) return { success: false, exitCode: null, error: 'worker lost' };
  return null;
}

/**
 * A task's state once its job is canceled: one not yet handed out (waiting or blocked) is canceled at
 * once; a running one keeps running until its worker, told at the next heartbeat, reports; a final
 * one stays as it ended.
 */
export function stateOnCancel(state: TaskState): TaskState {
  return state === 'waiting' || state === 'blocked' ? 'canceled' : state;
}
