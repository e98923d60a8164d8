import type { PipelineStore, Project, ProjectChanges, Variable, Worker } from '../types.js';
import { DuplicateError } from '../types.js';
import type { Db } from './database.js';
import { toProject, toWorker, type ProjectRow, type WorkerRow } from './rows.js';

type ProjectMethods = Pick<
  PipelineStore,
  | 'createProject'
  | 'findProject'
  | 'listProjects'
  | 'updateProject'
  | 'isProjectKeyTaken'
  | 'setVariable'
  | 'unsetVariable'
  | 'listVariables'
  | 'createWorker'
  | 'findWorkerByTokenHash'
  | 'findWorker'
  | 'listWorkers'
  | 'revokeWorker'
  | 'touchWorker'
>;

function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && 'code' in error && String(error.code).startsWith('SQLITE_CONSTRAINT_UNIQUE');
}

/** Projects, their variables, and workers: plain records with no scheduling rules. */
export function createProjectMethods(db: Db): ProjectMethods {
  const byId = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE id = ?');
  const byName = db.prepare<[string], ProjectRow>('SELECT * FROM projects WHERE name = ?');
  const workerById = db.prepare<[string], WorkerRow>('SELECT * FROM workers WHERE id = ?');
  const workerByHash = db.prepare<[string], WorkerRow>('SELECT * FROM workers WHERE token_hash = ? AND revoked_at IS NULL');
  // Last-seen is for operators; a write every few seconds is precise enough and spares the claim path.
  const touch = db.prepare(
    'UPDATE workers SET last_seen_at = ? WHERE id = ? AND (last_seen_at IS NULL OR last_seen_at < ? - 5000)',
  );

  function findProject(idOrName: string): Project | null {
    const row = byId.get(idOrName) ?? byName.get(idOrName);
    return row === undefined ? null : toProject(row);
  }

  // The key check and the insert in one transaction: the UNIQUE name alone would let a name equal an id.
  const insertProject = db.transaction((project: Project) => {
    for (const key of [project.id, project.name]) {
      if (findProject(key) !== null) throw new DuplicateError(`'${key}' is already a project's id or name`);
    }
    try {
      db.prepare(
        `INSERT INTO projects (id, name, repo, visibility, enabled, owner_user_id, realm, trigger_secret, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        project.id,
        project.name,
        project.repo,
        project.visibility,
        project.enabled ? 1 : 0,
        project.ownerUserId,
        project.realm,
        project.triggerSecret,
        project.createdAt,
        project.updatedAt,
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw new DuplicateError(`a project named '${project.name}' already exists`);
      throw error;
    }
  });

  // A new name is checked against every other project's id and name in the same transaction as the update.
  const applyProjectChanges = db.transaction((id: string, changes: ProjectChanges, now: number): Project => {
    if (changes.name !== undefined) {
      const holder = findProject(changes.name);
      if (holder !== null && holder.id !== id) throw new DuplicateError(`'${changes.name}' is already a project's id or name`);
    }
    const columns: Record<string, string | number | null | undefined> = {
      name: changes.name,
      enabled: changes.enabled === undefined ? undefined : changes.enabled ? 1 : 0,
      visibility: changes.visibility,
      repo: changes.repo,
      trigger_secret: changes.triggerSecret,
      owner_user_id: changes.ownerUserId,
    };
    const given = Object.entries(columns).filter((entry): entry is [string, string | number | null] => entry[1] !== undefined);
    const sets = given.map(([column]) => `${column} = ?`);
    const values = given.map(([, value]) => value);
    db.prepare(`UPDATE projects SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ?`).run(...values, now, id);
    const updated = byId.get(id);
    if (updated === undefined) throw new Error(`project ${id} vanished`);
    return toProject(updated);
  });

  // Names repeat only across revocations, so the check and the insert must not be split by another creation.
  const insertWorker = db.transaction((worker: Worker, tokenHash: string) => {
    const taken = db.prepare('SELECT 1 FROM workers WHERE name = ? AND revoked_at IS NULL LIMIT 1').get(worker.name);
    if (taken !== undefined) throw new DuplicateError(`a worker named '${worker.name}' already exists`);
    db.prepare(
      'INSERT INTO workers (id, name, owner_user_id, token_hash, created_at) VALUES (?, ?, ?, ?, ?)',
    ).run(worker.id, worker.name, worker.ownerUserId, tokenHash, worker.createdAt);
  });

  return {
    createProject: async (project) => insertProject.immediate(project),
    findProject: async (idOrName) => findProject(idOrName),
    async listProjects() {
      return db.prepare<[], ProjectRow>('SELECT * FROM projects ORDER BY name').all().map(toProject);
    },
    updateProject: async (id: string, changes: ProjectChanges, now: number) => applyProjectChanges.immediate(id, changes, now),
    async isProjectKeyTaken(value) {
      return findProject(value) !== null;
    },
    async setVariable(projectId: string, variable: Variable, now: number) {
      db.prepare(
        `INSERT INTO variables (project_id, name, value, secret, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (project_id, name) DO UPDATE SET value = excluded.value, secret = excluded.secret, updated_at = excluded.updated_at`,
      ).run(projectId, variable.name, variable.value, variable.secret ? 1 : 0, now);
    },
    async unsetVariable(projectId, name) {
      return db.prepare('DELETE FROM variables WHERE project_id = ? AND name = ?').run(projectId, name).changes > 0;
    },
    async listVariables(projectId) {
      return db
        .prepare<[string], { name: string; value: string; secret: number }>(
          'SELECT name, value, secret FROM variables WHERE project_id = ? ORDER BY name',
        )
        .all(projectId)
        .map((row) => ({ name: row.name, value: row.value, secret: row.secret === 1 }));
    },
    createWorker: async (worker, tokenHash) => insertWorker.immediate(worker, tokenHash),
    async findWorkerByTokenHash(tokenHash) {
      const row = workerByHash.get(tokenHash);
      return row === undefined ? null : toWorker(row);
    },
    async findWorker(idOrName) {
      const row =
        workerById.get(idOrName) ??
        db.prepare<[string], WorkerRow>('SELECT * FROM workers WHERE name = ? ORDER BY created_at DESC LIMIT 1').get(idOrName);
      return row === undefined ? null : toWorker(row);
    },
    async listWorkers() {
      return db.prepare<[], WorkerRow>('SELECT * FROM workers ORDER BY created_at').all().map(toWorker);
    },
    async revokeWorker(id, now) {
      db.prepare('UPDATE workers SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(now, id);
    },
    async touchWorker(id, now) {
      touch.run(now, id, now);
    },
  };
}
