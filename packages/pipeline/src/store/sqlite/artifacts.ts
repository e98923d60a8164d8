import type { ArtifactCompletion, ArtifactReservation, ArtifactReservationResult, PipelineStore } from '../types.js';
import type { Db } from './database.js';
import { toArtifact, type ArtifactRow } from './rows.js';

type ArtifactMethods = Pick<
  PipelineStore,
  | 'reserveArtifact'
  | 'commitArtifact'
  | 'removeArtifactRecord'
  | 'listArtifacts'
  | 'getArtifact'
  | 'listUnsettledArtifacts'
  | 'hasArtifactRecord'
  | 'listExpiredArtifacts'
  | 'assignMissingArtifactExpiry'
>;

export function createArtifactMethods(db: Db): ArtifactMethods {
  const heldAt = db.prepare<[string, string, number], { one: number }>(
    "SELECT 1 AS one FROM tasks WHERE id = ? AND state = 'running' AND worker_id = ? AND attempt = ?",
  );
  // Stored and in-flight bytes of the attempt; a stored file of the same path is about to be replaced.
  const attemptBytes = db.prepare<{ task: string; attempt: number; path: string }, { total: number }>(`
    SELECT COALESCE(SUM(size), 0) AS total FROM artifacts
    WHERE task_id = @task AND attempt = @attempt AND state <> 'deleting' AND NOT (state = 'stored' AND path = @path)`);
  const byId = db.prepare<[string], ArtifactRow>('SELECT * FROM artifacts WHERE id = ?');
  const markState = db.prepare('UPDATE artifacts SET state = ? WHERE id = ?');

  const reserve = db.transaction((reservation: ArtifactReservation, workerId: string, maxTaskBytes: number): ArtifactReservationResult => {
    if (heldAt.get(reservation.taskId, workerId, reservation.attempt) === undefined) return { kind: 'not-held' };
    const { total } = attemptBytes.get({ task: reservation.taskId, attempt: reservation.attempt, path: reservation.path }) ?? { total: 0 };
    if (total + reservation.size > maxTaskBytes) return { kind: 'over-limit', storedBytes: total };
    db.prepare(
      `INSERT INTO artifacts (id, task_id, attempt, path, state, size, sha256, created_at, expires_at)
       VALUES (?, ?, ?, ?, 'pending', ?, '', ?, NULL)`,
    ).run(reservation.id, reservation.taskId, reservation.attempt, reservation.path, reservation.size, reservation.createdAt);
    return { kind: 'reserved' };
  });

  const commit = db.transaction((id: string, workerId: string, completion: ArtifactCompletion) => {
    const row = byId.get(id);
    if (row === undefined || row.state !== 'pending') return { artifact: null, replaced: null };
    if (heldAt.get(row.task_id, workerId, row.attempt) === undefined) {
      markState.run('deleting', id);
      return { artifact: null, replaced: null };
    }
    const previous = db
      .prepare<[string, number, string], ArtifactRow>("SELECT * FROM artifacts WHERE task_id = ? AND attempt = ? AND path = ? AND state = 'stored'")
      .get(row.task_id, row.attempt, row.path);
    if (previous !== undefined) markState.run('deleting', previous.id);
    db.prepare("UPDATE artifacts SET state = 'stored', size = ?, sha256 = ?, created_at = ?, expires_at = ? WHERE id = ?").run(
      completion.size,
      completion.sha256,
      completion.createdAt,
      completion.expiresAt,
      id,
    );
    return { artifact: toArtifact(byId.get(id) as ArtifactRow), replaced: previous === undefined ? null : toArtifact(previous) };
  });

  return {
    reserveArtifact: async (reservation, workerId, maxTaskBytes) => reserve.immediate(reservation, workerId, maxTaskBytes),
    commitArtifact: async (id, workerId, completion) => commit.immediate(id, workerId, completion),
    async removeArtifactRecord(id) {
      db.prepare('DELETE FROM artifacts WHERE id = ?').run(id);
    },
    async listArtifacts(taskId, attempt) {
      return db
        .prepare<[string, number], ArtifactRow>("SELECT * FROM artifacts WHERE task_id = ? AND attempt = ? AND state = 'stored' ORDER BY path")
        .all(taskId, attempt)
        .map(toArtifact);
    },
    async getArtifact(id) {
      const row = byId.get(id);
      return row === undefined || row.state !== 'stored' ? null : toArtifact(row);
    },
    async listUnsettledArtifacts() {
      return db.prepare<[], { id: string }>("SELECT id FROM artifacts WHERE state <> 'stored' ORDER BY id").all().map((row) => row.id);
    },
    async hasArtifactRecord(id) {
      return byId.get(id) !== undefined;
    },
    async listExpiredArtifacts(now, limit) {
      return db
        .prepare<[number, number], ArtifactRow>(
          "SELECT * FROM artifacts WHERE state = 'stored' AND expires_at <= ? ORDER BY expires_at, id LIMIT ?",
        )
        .all(now, limit)
        .map(toArtifact);
    },
    async assignMissingArtifactExpiry(retentionMs) {
      return db.prepare("UPDATE artifacts SET expires_at = created_at + ? WHERE state = 'stored' AND expires_at IS NULL").run(retentionMs).changes;
    },
  };
}

