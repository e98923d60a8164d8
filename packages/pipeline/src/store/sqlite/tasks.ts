import type { TaskState } from '@conveyor/protocol';
import { lapsedOutcome, nextStateAfterOutcome } from '../../domain/rules/task-graph.js';
import type { ClaimFilter, ClaimLease, PipelineStore, Task, TaskOutcome, TaskTransition } from '../types.js';
import type { Db } from './database.js';
import { settleJob } from './jobs.js';
import { toTask, type TaskRow } from './rows.js';

type TaskMethods = Pick<
  PipelineStore,
  'getTask' | 'claimNextTask' | 'extendLease' | 'completeTask' | 'reapExpiredTasks' | 'setLogSize'
>;

export function createTaskMethods(db: Db): TaskMethods {
  const taskById = db.prepare<[string], TaskRow>('SELECT * FROM tasks WHERE id = ?');
  const heldTask = db.prepare<[string, string], TaskRow>(
    "SELECT * FROM tasks WHERE id = ? AND state = 'running' AND worker_id = ?",
  );
  const cancelFlag = db.prepare<[string], { cancel_requested: number }>('SELECT cancel_requested FROM jobs WHERE id = ?');
  // The partial index on waiting tasks is walked in (job_seq, position) order: oldest job, then file order.
  const nextClaimable = db.prepare<{ arches: string; features: string; owner: string | null }, { id: string }>(`
    SELECT t.id FROM tasks t
    WHERE t.state = 'waiting'
      AND t.arch IN (SELECT value FROM json_each(@arches))
      AND NOT EXISTS (
        SELECT 1 FROM json_each(t.requires) r WHERE r.value NOT IN (SELECT value FROM json_each(@features)))
      AND (@owner IS NULL OR t.project_id IN (SELECT id FROM projects WHERE owner_user_id = @owner))
    ORDER BY t.job_seq, t.position
    LIMIT 1`);
  const markClaimed = db.prepare(`
    UPDATE tasks SET state = 'running', attempt = attempt + 1, worker_id = @workerId, worker_name = @workerName,
      started_at = @now, finished_at = NULL, exit_code = NULL, error = NULL, log_size = 0,
      lease_expires_at = @now + @leaseMs, deadline_at = @now + timeout * 1000 + @graceMs
    WHERE id = @id AND state = 'waiting'`);
  const expired = db.prepare<[number, number], TaskRow>(
    "SELECT * FROM tasks WHERE state = 'running' AND (lease_expires_at <= ? OR deadline_at <= ?)",
  );

  // Two probes, each answered from a partial index of held tasks, so the common case reads no rows.
  const leaseLapsed = db.prepare<[number], { id: string }>(
    "SELECT id FROM tasks WHERE state = 'running' AND lease_expires_at <= ? LIMIT 1",
  );
  const deadlinePassed = db.prepare<[number], { id: string }>(
    "SELECT id FROM tasks WHERE state = 'running' AND deadline_at <= ? LIMIT 1",
  );
  const anyExpired = (now: number): boolean => leaseLapsed.get(now) !== undefined || deadlinePassed.get(now) !== undefined;

  function getTask(id: string): Task | null {
    const row = taskById.get(id);
    return row === undefined ? null : toTask(row);
  }

  /** Records an outcome for a held task (its job is settled by the caller). Runs inside a transaction. */
  function recordOutcome(task: Task, outcome: TaskOutcome, now: number): TaskState {
    const cancelRequested = cancelFlag.get(task.jobId)?.cancel_requested === 1;
    const state = nextStateAfterOutcome(task, outcome, cancelRequested);
    const requeued = state === 'waiting';
    db.prepare(
      `UPDATE tasks SET state = ?, exit_code = ?, error = ?, finished_at = ?, lease_expires_at = NULL, deadline_at = NULL,
         worker_id = CASE WHEN ? THEN NULL ELSE worker_id END
       WHERE id = ?`,
    ).run(state, outcome.exitCode, outcome.error, requeued ? null : now, requeued ? 1 : 0, task.id);
    return state;
  }

  const claim = db.transaction((filter: ClaimFilter, lease: ClaimLease): Task | null => {
    const candidate = nextClaimable.get({
      arches: JSON.stringify(filter.arches),
      features: JSON.stringify(filter.features),
      owner: filter.ownerUserId,
    });
    if (candidate === undefined) return null;
    markClaimed.run({
      id: candidate.id,
      workerId: lease.workerId,
      workerName: lease.workerName,
      now: lease.now,
      leaseMs: lease.leaseMs,
      graceMs: lease.timeoutGraceMs,
    });
    return getTask(candidate.id);
  });

  const complete = db.transaction(
    (taskId: string, workerId: string, outcome: TaskOutcome, now: number): TaskTransition | null => {
      const row = heldTask.get(taskId, workerId);
      if (row === undefined) return null;
      const requeued = recordOutcome(toTask(row), outcome, now) === 'waiting';
      const unblocked = settleJob(db, row.job_id, now);
      return { task: getTask(taskId) as Task, workBecameAvailable: requeued || unblocked };
    },
  );

  // Every lapsed task is recorded first and each job settled once, however many of its tasks lapsed.
  const reap = db.transaction((now: number): TaskTransition[] => {
    const lapsed = expired.all(now, now).map(toTask);
    let workBecameAvailable = false;
    for (const task of lapsed) {
      const outcome = lapsedOutcome(task, now);
      if (outcome !== null && recordOutcome(task, outcome, now) === 'waiting') workBecameAvailable = true;
    }
    for (const jobId of new Set(lapsed.map((task) => task.jobId))) {
      if (settleJob(db, jobId, now)) workBecameAvailable = true;
    }
    return lapsed.map((task) => ({ task: getTask(task.id) as Task, workBecameAvailable }));
  });

  const logSizeSet = db.prepare(
    "UPDATE tasks SET log_size = ? WHERE id = ? AND state = 'running' AND worker_id = ? AND attempt = ? AND log_size = ?",
  );
  const leaseExtended = db.prepare("UPDATE tasks SET lease_expires_at = ? WHERE id = ? AND state = 'running' AND worker_id = ?");

  return {
    getTask: async (id) => getTask(id),
    claimNextTask: async (filter, lease) => claim.immediate(filter, lease),
    // One UPDATE is atomic on its own; the cancel flag read after it is only advice for the worker.
    async extendLease(taskId, workerId, leaseMs, now) {
      if (leaseExtended.run(now + leaseMs, taskId, workerId).changes === 0) return null;
      const task = taskById.get(taskId);
      return { cancel: task !== undefined && cancelFlag.get(task.job_id)?.cancel_requested === 1 };
    },
    completeTask: async (taskId, workerId, outcome, now) => complete.immediate(taskId, workerId, outcome, now),
    // The check outside a transaction keeps the common case (nothing lapsed) free of write locks.
    reapExpiredTasks: async (now) => (anyExpired(now) ? reap.immediate(now) : []),
    // One UPDATE whose WHERE is the compare: atomic without a transaction.
    async setLogSize(taskId, workerId, attempt, expectedSize, size) {
      return logSizeSet.run(size, taskId, workerId, attempt, expectedSize).changes > 0;
    },
  };
}
