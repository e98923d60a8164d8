/**
 * The SQLite schema, applied in order; `PRAGMA user_version` records how many steps a file has had.
 * JSON columns hold arrays and maps that are only ever read whole.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE projects (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    repo TEXT NOT NULL,
    visibility TEXT NOT NULL CHECK (visibility IN ('private', 'public')),
    enabled INTEGER NOT NULL,
    owner_user_id TEXT,
    trigger_secret TEXT NOT NULL,
    job_counter INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE variables (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    secret INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, name)
  );
  CREATE TABLE workers (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    owner_user_id TEXT,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER,
    last_seen_at INTEGER
  );
  CREATE TABLE jobs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    project_id TEXT NOT NULL REFERENCES projects(id),
    number INTEGER NOT NULL,
    state TEXT NOT NULL,
    ref TEXT NOT NULL,
    head_sha TEXT NOT NULL,
    base TEXT,
    actor TEXT NOT NULL,
    trigger TEXT NOT NULL,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    finished_at INTEGER,
    UNIQUE (project_id, number)
  );
  CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    job_id TEXT NOT NULL REFERENCES jobs(id),
    job_seq INTEGER NOT NULL,
    project_id TEXT NOT NULL,
    position INTEGER NOT NULL,
    name TEXT NOT NULL,
    base_name TEXT NOT NULL,
    state TEXT NOT NULL,
    arch TEXT NOT NULL,
    image TEXT NOT NULL,
    script TEXT NOT NULL,
    env TEXT NOT NULL,
    services TEXT NOT NULL,
    requires TEXT NOT NULL,
    artifact_paths TEXT NOT NULL,
    workdir TEXT NOT NULL,
    timeout INTEGER NOT NULL,
    attempt INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    allow_failure INTEGER NOT NULL,
    needs TEXT NOT NULL,
    matrix TEXT NOT NULL,
    exit_code INTEGER,
    error TEXT,
    worker_id TEXT,
    worker_name TEXT,
    lease_expires_at INTEGER,
    deadline_at INTEGER,
    log_size INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    UNIQUE (job_id, name)
  );
  CREATE INDEX tasks_claimable ON tasks (job_seq, position) WHERE state = 'waiting';
  CREATE INDEX tasks_held ON tasks (lease_expires_at) WHERE state = 'running';
  CREATE INDEX tasks_of_job ON tasks (job_id, position);
  CREATE TABLE artifacts (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks(id),
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER,
    UNIQUE (task_id, path)
  );
  `,
  `
  CREATE INDEX tasks_held_deadline ON tasks (deadline_at) WHERE state = 'running';
  `,
  `
  CREATE INDEX tasks_blocked ON tasks (job_id) WHERE state = 'blocked';
  `,
  // Artifacts belong to an attempt, and a row is written before its bytes ('pending') and marked
  // 'deleting' before they are removed, so a crash leaves a row the start-up sweep can finish, never a
  // file nobody knows of. Rows from before this step belong to their task's attempt at the time.
  `
  ALTER TABLE tasks ADD COLUMN artifact_expire_in INTEGER;
  CREATE TABLE artifacts_by_attempt (
    id TEXT PRIMARY KEY,
    task_id TEXT NOT NULL REFERENCES tasks(id),
    attempt INTEGER NOT NULL,
    path TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'stored', 'deleting')),
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER
  );
  INSERT INTO artifacts_by_attempt (id, task_id, attempt, path, state, size, sha256, created_at, expires_at)
    SELECT a.id, a.task_id, MAX(t.attempt, 1), a.path, 'stored', a.size, a.sha256, a.created_at, a.expires_at
    FROM artifacts a JOIN tasks t ON t.id = a.task_id;
  DROP TABLE artifacts;
  ALTER TABLE artifacts_by_attempt RENAME TO artifacts;
  CREATE UNIQUE INDEX artifacts_stored_path ON artifacts (task_id, attempt, path) WHERE state = 'stored';
  CREATE INDEX artifacts_of_attempt ON artifacts (task_id, attempt);
  CREATE INDEX artifacts_unsettled ON artifacts (state) WHERE state <> 'stored';
  CREATE INDEX artifacts_expiry ON artifacts (expires_at) WHERE state = 'stored';
  `,
  // Workers remember what their last claim offered (a waiting task can then say why no worker takes
  // it), and a task remembers how many attempts one run of it gets, so re-running a failed task gives
  // it its retries again. The jobs list reads (project_id, number) through the UNIQUE index.
  `
  ALTER TABLE workers ADD COLUMN offered_arches TEXT;
  ALTER TABLE workers ADD COLUMN offered_features TEXT;
  CREATE INDEX workers_live ON workers (last_seen_at) WHERE revoked_at IS NULL;
  ALTER TABLE tasks ADD COLUMN attempts_per_run INTEGER NOT NULL DEFAULT 1;
  UPDATE tasks SET attempts_per_run = max_attempts;
  `,
  // API tokens for scripts: only the SHA-256 of a token is kept, looked up by that hash.
  `
  CREATE TABLE api_tokens (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    realm TEXT NOT NULL,
    name TEXT NOT NULL,
    token_hash TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER
  );
  CREATE INDEX api_tokens_of_user ON api_tokens (user_id, realm) WHERE revoked_at IS NULL;
  CREATE INDEX tasks_held_by_worker ON tasks (worker_id) WHERE state = 'running';
  `,
  // Projects belong to a sign-in realm and are served only on its hosts; existing ones join the system realm.
  `
  ALTER TABLE projects ADD COLUMN realm TEXT NOT NULL DEFAULT 'system';
  `,
  // Job events for followers (GET .../events): one row per job creation, job state change, task creation
  // and task state or attempt change, written by triggers so that every transition (whoever writes it)
  // records its event in its own transaction. AUTOINCREMENT never reuses a seq, and SQLite's single
  // writer commits them in order, so "after seq N" is a resume position. Existing jobs and tasks get one
  // event each, their state now.
  `
  CREATE TABLE job_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id TEXT NOT NULL,
    job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
    task_id TEXT,
    state TEXT NOT NULL,
    attempt INTEGER,
    exit_code INTEGER,
    started_at INTEGER,
    finished_at INTEGER
  );
  CREATE INDEX job_events_of_job ON job_events (job_id, seq);
  CREATE INDEX job_events_of_project ON job_events (project_id, seq) WHERE task_id IS NULL;
  INSERT INTO job_events (project_id, job_id, state, finished_at)
    SELECT project_id, id, state, finished_at FROM jobs ORDER BY seq;
  INSERT INTO job_events (project_id, job_id, task_id, state, attempt, exit_code, started_at, finished_at)
    SELECT project_id, job_id, id, state, attempt, exit_code, started_at, finished_at FROM tasks ORDER BY job_seq, position;
  CREATE TRIGGER job_created AFTER INSERT ON jobs BEGIN
    INSERT INTO job_events (project_id, job_id, state, finished_at) VALUES (NEW.project_id, NEW.id, NEW.state, NEW.finished_at);
  END;
  CREATE TRIGGER job_state_changed AFTER UPDATE OF state ON jobs WHEN OLD.state IS NOT NEW.state BEGIN
    INSERT INTO job_events (project_id, job_id, state, finished_at) VALUES (NEW.project_id, NEW.id, NEW.state, NEW.finished_at);
  END;
  CREATE TRIGGER task_created AFTER INSERT ON tasks BEGIN
    INSERT INTO job_events (project_id, job_id, task_id, state, attempt, exit_code, started_at, finished_at)
      VALUES (NEW.project_id, NEW.job_id, NEW.id, NEW.state, NEW.attempt, NEW.exit_code, NEW.started_at, NEW.finished_at);
  END;
  CREATE TRIGGER task_state_changed AFTER UPDATE OF state, attempt ON tasks
    WHEN OLD.state IS NOT NEW.state OR OLD.attempt IS NOT NEW.attempt BEGIN
    INSERT INTO job_events (project_id, job_id, task_id, state, attempt, exit_code, started_at, finished_at)
      VALUES (NEW.project_id, NEW.job_id, NEW.id, NEW.state, NEW.attempt, NEW.exit_code, NEW.started_at, NEW.finished_at);
  END;
  `,
  // The commit's subject line, read when the job is created; jobs stored before this step have none.
  `
  ALTER TABLE jobs ADD COLUMN commit_message TEXT;
  `,
];
