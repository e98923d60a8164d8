import type { TaskState } from '@conveyor/protocol';
import { deriveJobState, initialTaskState, settleBlockedTasks, isFinal, stateOnCancel, tallyTasks, type JobTally } from '../../domain/rules/task-graph.js';
import type { Job, NewJob, PipelineStore } from '../types.js';
import type { Db } from './database.js';
import { toJob, toTask, type JobRow, type TaskRow } from './rows.js';

type JobMethods = Pick<PipelineStore, 'insertJob' | 'findJob' | 'getJobById' | 'listTasksOfJob' | 'cancelJob'>;

interface GraphRow {
  id: string;
  name: string;
  state: string;
  allow_failure: number;
  needs: string;
}

/**
 * Brings a job up to date after one of its tasks changed: unblocks or skips dependents and, once every
 * task is final, records the job's outcome. Must run inside the caller's transaction. Returns true when
 * a task became claimable. The graph is walked only when the job has blocked tasks; otherwise SQLite
 * tallies the states (a completion in a 250-task matrix must not parse 250 rows).
 */
export function settleJob(db: Db, jobId: string, now: number): boolean {
  const job = db.prepare<[string], { state: string; cancel_requested: number }>(
    'SELECT state, cancel_requested FROM jobs WHERE id = ?',
  ).get(jobId);
  if (job === undefined) return false;
  const unblocked = hasBlockedTasks(db, jobId) ? settleBlocked(db, jobId, now) : false;
  if (job.state === 'running') {
    const state = deriveJobState(tallyJob(db, jobId), job.cancel_requested === 1);
    if (state !== 'running') db.prepare('UPDATE jobs SET state = ?, finished_at = ? WHERE id = ?').run(state, now, jobId);
  }
  return unblocked;
}

function hasBlockedTasks(db: Db, jobId: string): boolean {
  return db.prepare("SELECT 1 FROM tasks WHERE job_id = ? AND state = 'blocked' LIMIT 1").get(jobId) !== undefined;
}

/** Counts by (state, allow_failure) in SQL, so a 250-task job yields a handful of rows; the rules are the domain's. */
function tallyJob(db: Db, jobId: string): JobTally {
  const groups = db
    .prepare<[string], { state: string; allow_failure: number; count: number }>(
      'SELECT state, allow_failure, COUNT(*) AS count FROM tasks WHERE job_id = ? GROUP BY state, allow_failure',
    )
    .all(jobId);
  return tallyTasks(groups.map((group) => ({ state: group.state as TaskState, allowFailure: group.allow_failure === 1, count: group.count })));
}

/** Applies the graph rules to the job's blocked tasks; true when one became claimable. */
function settleBlocked(db: Db, jobId: string, now: number): boolean {
  const rows = db
    .prepare<[string], GraphRow>('SELECT id, name, state, allow_failure, needs FROM tasks WHERE job_id = ?')
    .all(jobId);
  const changes = settleBlockedTasks(
    rows.map((row) => ({
      id: row.id,
      name: row.name,
      state: row.state as TaskState,
      allowFailure: row.allow_failure === 1,
      needs: JSON.parse(row.needs) as string[],
    })),
  );
  const update = db.prepare('UPDATE tasks SET state = ?, finished_at = ? WHERE id = ?');
  for (const [id, state] of changes) update.run(state, state === 'skipped' ? now : null, id);
  return [...changes.values()].includes('waiting');
}

export function createJobMethods(db: Db): JobMethods {
  const jobById = db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?');
  const tasksOfJob = db.prepare<[string], TaskRow>('SELECT * FROM tasks WHERE job_id = ? ORDER BY position');

  function getJobById(id: string): Job | null {
    const row = jobById.get(id);
    return row === undefined ? null : toJob(row);
  }

  const insertJob = db.transaction((job: NewJob, ids: { jobId: string; taskIds: string[] }, now: number): Job => {
    const counter = db
      .prepare<[string], { job_counter: number }>(
        'UPDATE projects SET job_counter = job_counter + 1 WHERE id = ? RETURNING job_counter',
      )
      .get(job.projectId);
    if (counter === undefined) throw new Error(`project ${job.projectId} vanished`);
    const { lastInsertRowid: seq } = db
      .prepare(
        `INSERT INTO jobs (id, project_id, number, state, ref, head_sha, base, actor, trigger, commit_message, created_at)
         VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(ids.jobId, job.projectId, counter.job_counter, job.ref, job.headSha, job.base, job.actor, job.trigger, job.commitMessage ?? null, now);
    const insertTask = db.prepare(
      `INSERT INTO tasks (id, job_id, job_seq, project_id, position, name, base_name, state, arch, image, script, env,
         services, requires, artifact_paths, artifact_expire_in, workdir, timeout, max_attempts, attempts_per_run, allow_failure, needs, matrix, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    job.tasks.forEach((task, position) => {
      insertTask.run(
        ids.taskIds[position],
        ids.jobId,
        seq,
        job.projectId,
        position,
        task.name,
        task.baseName,
        initialTaskState(task.needs),
        task.arch,
        task.image,
        JSON.stringify(task.script),
        JSON.stringify(task.env),
        JSON.stringify(task.services),
        JSON.stringify(task.requires),
        JSON.stringify(task.artifactPaths),
        task.artifactExpireIn,
        task.workdir,
        task.timeout,
        task.maxAttempts,
        task.maxAttempts,
        task.allowFailure ? 1 : 0,
        JSON.stringify(task.needs),
        JSON.stringify(task.matrix),
        now,
      );
    });
    return getJobById(ids.jobId) as Job;
  });

  const cancelJob = db.transaction((jobId: string, now: number): Job => {
    db.prepare("UPDATE jobs SET cancel_requested = 1 WHERE id = ? AND state = 'running'").run(jobId);
    const update = db.prepare('UPDATE tasks SET state = ?, finished_at = ? WHERE id = ?');
    for (const task of db.prepare<[string], { id: string; state: TaskState }>('SELECT id, state FROM tasks WHERE job_id = ?').all(jobId)) {
      const state = stateOnCancel(task.state);
      if (state !== task.state) update.run(state, isFinal(state) ? now : null, task.id);
    }
    settleJob(db, jobId, now);
    return getJobById(jobId) as Job;
  });

  return {
    insertJob: async (job, ids, now) => insertJob.immediate(job, ids, now),
    async findJob(projectId, idOrNumber) {
      const row = /^[1-9]\d{0,15}$/.test(idOrNumber)
        ? db.prepare<[string, number], JobRow>('SELECT * FROM jobs WHERE project_id = ? AND number = ?').get(projectId, Number(idOrNumber))
        : db.prepare<[string, string], JobRow>('SELECT * FROM jobs WHERE project_id = ? AND id = ?').get(projectId, idOrNumber);
      return row === undefined ? null : toJob(row);
    },
    getJobById: async (id) => getJobById(id),
    async listTasksOfJob(jobId) {
      return tasksOfJob.all(jobId).map(toTask);
    },
    cancelJob: async (jobId, now) => cancelJob.immediate(jobId, now),
  };
}
