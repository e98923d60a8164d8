import type { JobState } from '@conveyor/protocol';
import type { PipelineStore, ProjectListing, ProjectPageQuery, WorkerActivity } from '../types.js';
import type { Db } from './database.js';
import { toProject, toWorker, type ProjectRow, type WorkerRow } from './rows.js';

type ManageMethods = Pick<PipelineStore, 'listProjectPage' | 'deleteProject' | 'listWorkerActivity'>;

type ListingRow = ProjectRow & {
  job_id: string | null;
  job_number: number | null;
  job_state: string | null;
  job_ref: string | null;
  job_created_at: number | null;
};

type ActivityRow = WorkerRow & {
  task_id: string | null;
  task_name: string | null;
  task_project_id: string | null;
  task_project_name: string | null;
  task_job_id: string | null;
  task_job_number: number | null;
};

/** What the management API reads and removes across tables: listings with their newest job, a project's removal, workers' activity. */
export function createManageMethods(db: Db): ManageMethods {
  const listing = db.prepare<[string, number, string, string | null, string | null, number], ListingRow>(
    `SELECT p.*, j.id AS job_id, j.number AS job_number, j.state AS job_state, j.ref AS job_ref, j.created_at AS job_created_at
     FROM projects p
     LEFT JOIN jobs j ON j.project_id = p.id AND j.number = p.job_counter
     WHERE p.realm = ?
       AND (? = 1 OR p.visibility = 'public' OR p.owner_user_id = ?)
       AND (? IS NULL OR p.name > ?)
     ORDER BY p.name
     LIMIT ?`,
  );

  const remove = db.transaction((projectId: string) => {
    if (db.prepare('SELECT 1 FROM projects WHERE id = ?').get(projectId) === undefined) return null;
    const jobsOf = 'SELECT id FROM jobs WHERE project_id = ?';
    const tasksOf = `SELECT id FROM tasks WHERE job_id IN (${jobsOf})`;
    const artifactIds = db.prepare<[string], { id: string }>(`SELECT id FROM artifacts WHERE task_id IN (${tasksOf})`).all(projectId).map((row) => row.id);
    const taskIds = db.prepare<[string], { id: string }>(tasksOf).all(projectId).map((row) => row.id);
    db.prepare(`DELETE FROM artifacts WHERE task_id IN (${tasksOf})`).run(projectId);
    db.prepare(`DELETE FROM tasks WHERE job_id IN (${jobsOf})`).run(projectId);
    db.prepare('DELETE FROM jobs WHERE project_id = ?').run(projectId);
    db.prepare('DELETE FROM variables WHERE project_id = ?').run(projectId);
    db.prepare('DELETE FROM projects WHERE id = ?').run(projectId);
    return { artifactIds, taskIds };
  });

  const activity = db.prepare<[string | null, string | null], ActivityRow>(
    `SELECT w.*, t.id AS task_id, t.name AS task_name, t.project_id AS task_project_id, p.name AS task_project_name,
            j.id AS task_job_id, j.number AS task_job_number
     FROM workers w
     LEFT JOIN tasks t ON t.id = (SELECT id FROM tasks WHERE worker_id = w.id AND state = 'running' LIMIT 1)
     LEFT JOIN jobs j ON j.id = t.job_id
     LEFT JOIN projects p ON p.id = t.project_id
     WHERE w.revoked_at IS NULL AND (? IS NULL OR w.owner_user_id = ?)
     ORDER BY w.created_at, w.name`,
  );

  return {
    async listProjectPage(query: ProjectPageQuery): Promise<ProjectListing[]> {
      return listing
        .all(query.realm, query.all ? 1 : 0, query.ownerUserId, query.afterName, query.afterName, query.limit)
        .map((row) => ({
          project: toProject(row),
          lastJob:
            row.job_id === null
              ? null
              : { id: row.job_id, number: row.job_number ?? 0, state: row.job_state as JobState, ref: row.job_ref ?? '', createdAt: row.job_created_at ?? 0 },
        }));
    },
    deleteProject: async (id) => remove.immediate(id),
    async listWorkerActivity(ownerUserId): Promise<WorkerActivity[]> {
      return activity.all(ownerUserId, ownerUserId).map((row) => ({
        worker: toWorker(row),
        heldTask:
          row.task_id === null
            ? null
            : {
                id: row.task_id,
                name: row.task_name ?? '',
                projectId: row.task_project_id ?? '',
                projectName: row.task_project_name ?? '',
                jobId: row.task_job_id ?? '',
                jobNumber: row.task_job_number ?? 0,
              },
      }));
    },
  };
}
