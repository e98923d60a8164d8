import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from '../schema.js';

export type Db = Database.Database;

/**
 * Opens (creating if needed) the SQLite file in WAL mode with a busy timeout, so the admin CLI and the
 * server can work on the same file at once, and brings its schema up to date.
 */
export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  // NORMAL is durable across application crashes in WAL mode; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  migrate(db);
  return db;
}

function migrate(db: Db): void {
  const apply = db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    for (let step = version; step < MIGRATIONS.length; step += 1) {
      db.exec(MIGRATIONS[step] as string);
    }
    if (version < MIGRATIONS.length) db.pragma(`user_version = ${MIGRATIONS.length}`);
  });
  apply.immediate();
}
