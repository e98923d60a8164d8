import type { JobState, TaskState } from '@conveyor/protocol';
import type { JobStateEvent, PipelineStore, TaskStateEvent } from '../types.js';
import type { Db } from './database.js';
import { toJob, type JobRow } from './rows.js';

type EventMethods = Pick<PipelineStore, 'listJobEvents' | 'listProjectJobEvents' | 'latestEventSeq'>;

/** An event row joined with what never changes of its job (the `j_` columns) and its task's name. */
interface EventRow {
  seq: number;
  job_id: string;
  task_id: string | null;
  task_name: string | null;
  state: string;
  attempt: number | null;
  exit_code: number | null;
  started_at: number | null;
  finished_at: number | null;
}

type JobEventRow = EventRow & { [K in keyof JobRow as `j_${K}`]: JobRow[K] };

const JOB_COLUMNS = ['id', 'project_id', 'number', 'state', 'ref', 'head_sha', 'base', 'actor', 'trigger', 'cancel_requested', 'created_at', 'finished_at'];
const SELECT = `SELECT e.seq, e.job_id, e.task_id, t.name AS task_name, e.state, e.attempt, e.exit_code, e.started_at, e.finished_at,
  ${JOB_COLUMNS.map((column) => `j.${column} AS j_${column}`).join(', ')}
  FROM job_events e JOIN jobs j ON j.id = e.job_id LEFT JOIN tasks t ON t.id = e.task_id`;

function toJobRow(row: JobEventRow): JobRow {
  return Object.fromEntries(JOB_COLUMNS.map((column) => [column, row[`j_${column}` as keyof JobEventRow]])) as unknown as JobRow;
}

function toJobStateEvent(row: JobEventRow): JobStateEvent {
  return { kind: 'job', seq: row.seq, job: toJob(toJobRow(row)), state: row.state as JobState, finishedAt: row.finished_at };
}

function toTaskStateEvent(row: JobEventRow): TaskStateEvent {
  return {
    kind: 'task',
    seq: row.seq,
    jobId: row.job_id,
    taskId: row.task_id as string,
    name: row.task_name ?? '',
    state: row.state as TaskState,
    attempt: row.attempt ?? 0,
    exitCode: row.exit_code,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}

/** The rows are written by the schema's triggers (store/schema.ts), in the transaction of each change. */
export function createEventMethods(db: Db): EventMethods {
  const ofJob = db.prepare<[string, number, number], JobEventRow>(`${SELECT} WHERE e.job_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?`);
  const ofProject = db.prepare<[string, number, number], JobEventRow>(
    `${SELECT} WHERE e.project_id = ? AND e.task_id IS NULL AND e.seq > ? ORDER BY e.seq LIMIT ?`,
  );
  const latest = db.prepare<[], { seq: number }>('SELECT COALESCE(MAX(seq), 0) AS seq FROM job_events');
  return {
    async latestEventSeq() {
      return (latest.get() as { seq: number }).seq;
    },
    async listJobEvents(jobId, afterSeq, limit) {
      return ofJob.all(jobId, afterSeq, limit).map((row) => (row.task_id === null ? toJobStateEvent(row) : toTaskStateEvent(row)));
    },
    async listProjectJobEvents(projectId, afterSeq, limit) {
      return ofProject.all(projectId, afterSeq, limit).map(toJobStateEvent);
    },
  };
}
