import type { PipelineStore, StoredArtifact } from '../types.js';
import type { Db } from './database.js';
import { toArtifact, type ArtifactRow } from './rows.js';

type ArtifactMethods = Pick<PipelineStore, 'putArtifact' | 'listArtifacts' | 'getArtifact'>;

export function createArtifactMethods(db: Db): ArtifactMethods {
  const put = db.transaction((artifact: StoredArtifact, workerId: string) => {
    const held = db
      .prepare("SELECT 1 FROM tasks WHERE id = ? AND state = 'running' AND worker_id = ?")
      .get(artifact.taskId, workerId);
    if (held === undefined) return { stored: false, replaced: null };
    const previous = db
      .prepare<[string, string], ArtifactRow>('SELECT * FROM artifacts WHERE task_id = ? AND path = ?')
      .get(artifact.taskId, artifact.path);
    if (previous !== undefined) db.prepare('DELETE FROM artifacts WHERE id = ?').run(previous.id);
    db.prepare(
      'INSERT INTO artifacts (id, task_id, path, size, sha256, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(artifact.id, artifact.taskId, artifact.path, artifact.size, artifact.sha256, artifact.createdAt, artifact.expiresAt);
    return { stored: true, replaced: previous === undefined ? null : toArtifact(previous) };
  });

  return {
    putArtifact: async (artifact, workerId) => put.immediate(artifact, workerId),
    async listArtifacts(taskId) {
      return db
        .prepare<[string], ArtifactRow>('SELECT * FROM artifacts WHERE task_id = ? ORDER BY path')
        .all(taskId)
        .map(toArtifact);
    },
    async getArtifact(id) {
      const row = db.prepare<[string], ArtifactRow>('SELECT * FROM artifacts WHERE id = ?').get(id);
      return row === undefined ? null : toArtifact(row);
    },
  };
}
