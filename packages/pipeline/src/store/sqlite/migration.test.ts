// Upgrading a database file written by the previous schema (before artifacts belonged to attempts).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { makeTempDir } from '../../git/test-repos.js';
import { MIGRATIONS } from '../schema.js';
import { openSqliteStore } from './index.js';

/** The schema as it was: the first three steps. */
const OLD_STEPS = 3;

function createOldDatabase(path: string): void {
  const db = new Database(path);
  for (const step of MIGRATIONS.slice(0, OLD_STEPS)) db.exec(step);
  db.pragma(`user_version = ${OLD_STEPS}`);
  db.prepare(
    `INSERT INTO projects (id, name, repo, visibility, enabled, trigger_secret, created_at, updated_at)
     VALUES ('p1', 'demo', '/srv/demo', 'public', 1, 's', 1, 1)`,
  ).run();
  db.prepare(
    `INSERT INTO jobs (id, project_id, number, state, ref, head_sha, actor, trigger, created_at)
     VALUES ('j1', 'p1', 1, 'running', 'refs/heads/main', '${'a'.repeat(40)}', 'me', 'api', 1)`,
  ).run();
  const task = db.prepare(
    `INSERT INTO tasks (id, job_id, job_seq, project_id, position, name, base_name, state, arch, image, script, env, services,
       requires, artifact_paths, workdir, timeout, attempt, max_attempts, allow_failure, needs, matrix, created_at)
     VALUES (?, 'j1', 1, 'p1', ?, ?, ?, ?, 'amd64', 'x', '[]', '{}', '[]', '[]', '["out/*"]', '/w', 60, ?, 3, 0, '[]', '{}', 1)`,
  );
  task.run('t-retried', 0, 'retried', 'retried', 'success', 2);
  task.run('t-unclaimed', 1, 'unclaimed', 'unclaimed', 'waiting', 0);
  const artifact = db.prepare(
    'INSERT INTO artifacts (id, task_id, path, size, sha256, created_at, expires_at) VALUES (?, ?, ?, 1, ?, 1000, NULL)',
  );
  artifact.run('a-retried', 't-retried', 'out/r.txt', '1'.repeat(64));
  artifact.run('a-odd', 't-unclaimed', 'out/u.txt', '2'.repeat(64));
  db.close();
}

describe('schema migration', () => {
  it('gives existing artifacts their task\'s attempt (at least 1), keeps them stored, and adds expire_in to tasks', async () => {
    const dir = await makeTempDir('migration');
    const path = join(dir.path, 'pipeline.db');
    try {
      createOldDatabase(path);
      const store = openSqliteStore(path);
      try {
        assert.deepEqual(await store.listArtifacts('t-retried', 2), [
          { id: 'a-retried', taskId: 't-retried', attempt: 2, path: 'out/r.txt', size: 1, sha256: '1'.repeat(64), createdAt: 1000, expiresAt: null },
        ]);
        assert.deepEqual(await store.listArtifacts('t-retried', 1), []);
        assert.equal((await store.getArtifact('a-odd'))?.attempt, 1);
        assert.deepEqual(await store.listUnsettledArtifacts(), []);
        assert.equal((await store.getTask('t-retried'))?.artifactExpireIn, null);
        assert.equal(await store.assignMissingArtifactExpiry(5000), 2);
        assert.equal((await store.getArtifact('a-retried'))?.expiresAt, 6000);
        // Projects from before realms belong to the system realm.
        assert.equal((await store.findProject('p1'))?.realm, 'system');
        // Jobs from before commit messages were recorded have none (the API says null: unknown).
        assert.equal((await store.getJobById('j1'))?.commitMessage, null);
      } finally {
        await store.close();
      }
      const reopened = new Database(path, { readonly: true });
      assert.equal(reopened.pragma('user_version', { simple: true }), MIGRATIONS.length);
      reopened.close();
    } finally {
      await dir.remove();
    }
  });
});

describe('schema migration: attempts per run', () => {
  it("gives existing tasks their max_attempts as one run's attempts, so a re-run of a failed task gets its retries again", async () => {
    const dir = await makeTempDir('migration-rerun');
    const path = join(dir.path, 'pipeline.db');
    try {
      const db = new Database(path);
      for (const step of MIGRATIONS.slice(0, 4)) db.exec(step);
      db.pragma('user_version = 4');
      db.prepare(
        `INSERT INTO projects (id, name, repo, visibility, enabled, trigger_secret, created_at, updated_at) VALUES ('p1', 'demo', '/srv/demo', 'public', 1, 's', 1, 1)`,
      ).run();
      db.prepare(
        `INSERT INTO jobs (id, project_id, number, state, ref, head_sha, actor, trigger, created_at, finished_at)
         VALUES ('j1', 'p1', 1, 'failure', 'refs/heads/main', '${'a'.repeat(40)}', 'me', 'api', 1, 2)`,
      ).run();
      db.prepare(
        `INSERT INTO tasks (id, job_id, job_seq, project_id, position, name, base_name, state, arch, image, script, env, services,
           requires, artifact_paths, workdir, timeout, attempt, max_attempts, allow_failure, needs, matrix, created_at, finished_at)
         VALUES ('t1', 'j1', 1, 'p1', 0, 'build', 'build', 'failure', 'amd64', 'x', '[]', '{}', '[]', '[]', '[]', '/w', 60, 3, 3, 0, '[]', '{}', 1, 2)`,
      ).run();
      db.close();
      const store = openSqliteStore(path);
      try {
        assert.equal((await store.rerunFailedTasks('j1', 10)).kind, 'rerun');
        const task = await store.getTask('t1');
        assert.deepEqual([task?.state, task?.attempt, task?.maxAttempts], ['waiting', 3, 6]);
      } finally {
        await store.close();
      }
    } finally {
      await dir.remove();
    }
  });
});
