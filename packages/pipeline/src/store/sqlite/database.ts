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
  cacheStatements(db);
  return db;
}

/**
 * Compiles each SQL text once per connection, so store methods can state their SQL where it is used
 * without paying for compilation on every call (a claim runs a dozen statements).
 */
function cacheStatements(db: Db): void {
  const compile = db.prepare.bind(db);
  const compiled = new Map<string, Database.Statement>();
  db.prepare = ((sql: string) => {
    let statement = compiled.get(sql);
    if (statement === undefined) {
      statement = compile(sql);
      compiled.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
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
