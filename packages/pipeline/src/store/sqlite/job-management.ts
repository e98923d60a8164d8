import type { TaskState } from '@conveyor/protocol';
import { planFailedRerun } from '../../domain/rules/rerun.js';
import type { FailedRerun, JobListing, PipelineStore } from '../types.js';
import type { Db } from './database.js';
import { settleJob } from './jobs.js';
import { toJob, type JobRow } from './rows.js';

type ManagementMethods = Pick<PipelineStore, 'listJobs' | 'rerunFailedTasks'>;

type ListedRow = JobRow & { task_state: string | null; task_count: number; first_start: number | null };

interface RerunRow {
  id: string;
  name: string;
  state: string;
  needs: string;
  attempt: number;
  attempts_per_run: number;
}

export function createJobManagementMethods(db: Db): ManagementMethods {
  // One statement per page: the page of jobs (walked down the (project_id, number) index), joined to
  // their tasks and grouped by state, so a page of 100 jobs is one query whatever their size.
  const page = db.prepare<Record<string, string | number | null>, ListedRow>(`
    WITH page AS (
      SELECT * FROM jobs
      WHERE project_id = @project
        AND (@before IS NULL OR number < @before)
        AND (@ref IS NULL OR ref = @ref)
        AND (@state IS NULL OR state = @state)
        AND (@trigger IS NULL OR trigger = @trigger)
      ORDER BY number DESC
      LIMIT @limit
    )
    SELECT page.*, t.state AS task_state, COUNT(t.id) AS task_count, MIN(t.started_at) AS first_start
    FROM page LEFT JOIN tasks t ON t.job_id = page.id
    GROUP BY page.id, t.state
    ORDER BY page.number DESC`);

  const jobState = db.prepare<[string], { state: string }>('SELECT state FROM jobs WHERE id = ?');
  const rerunRows = db.prepare<[string], RerunRow>('SELECT id, name, state, needs, attempt, attempts_per_run FROM tasks WHERE job_id = ?');
  // The last attempt's exit code, error, worker and log size stay until the next claim replaces them,
  // as with a requeued retry, so the task read still describes the attempt whose log is current.
  const reopenTask = db.prepare(
    'UPDATE tasks SET state = ?, max_attempts = ?, finished_at = NULL, lease_expires_at = NULL, deadline_at = NULL, worker_id = NULL WHERE id = ?',
  );
  const reopenJob = db.prepare("UPDATE jobs SET state = 'running', finished_at = NULL, cancel_requested = 0 WHERE id = ?");

  const rerun = db.transaction((jobId: string, now: number): FailedRerun => {
    const job = jobState.get(jobId);
    if (job === undefined) return { kind: 'nothing' };
    if (job.state === 'running') return { kind: 'running' };
    const plan = planFailedRerun(
      rerunRows.all(jobId).map((row) => ({
        id: row.id,
        name: row.name,
        state: row.state as TaskState,
        needs: JSON.parse(row.needs) as string[],
        attempt: row.attempt,
        attemptsPerRun: row.attempts_per_run,
      })),
    );
    if (plan.size === 0) return { kind: 'nothing' };
    for (const [id, change] of plan) reopenTask.run(change.state, change.maxAttempts, id);
    reopenJob.run(jobId);
    settleJob(db, jobId, now);
    const reopened = toJob(db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?').get(jobId) as JobRow);
    return { kind: 'rerun', job: reopened, tasks: plan.size, workBecameAvailable: [...plan.values()].some((change) => change.state === 'waiting') };
  });

  return {
    async listJobs(projectId, filter, { beforeNumber, limit }) {
      const rows = page.all({
        project: projectId,
        before: beforeNumber,
        ref: filter.ref ?? null,
        state: filter.state ?? null,
        trigger: filter.trigger ?? null,
        limit,
      });
      const listings = new Map<string, JobListing>();
      for (const row of rows) {
        let listing = listings.get(row.id);
        if (listing === undefined) {
          listing = { job: toJob(row), startedAt: null, taskCounts: {} };
          listings.set(row.id, listing);
        }
        if (row.task_state === null) continue;
        listing.taskCounts[row.task_state as TaskState] = row.task_count;
        if (row.first_start !== null && (listing.startedAt === null || row.first_start < listing.startedAt)) listing.startedAt = row.first_start;
      }
      return [...listings.values()];
    },
    rerunFailedTasks: async (jobId, now) => rerun.immediate(jobId, now),
  };
}
