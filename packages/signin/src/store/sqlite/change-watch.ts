import type Database from 'better-sqlite3';

/**
 * Tells a cache when to reload. `PRAGMA data_version` changes when another connection (the admin
 * CLI, another server) commits to the file; this connection's own writes call `markDirty`.
 */
export class ChangeWatch {
  private readonly dataVersion: Database.Statement<[], number>;
  private seen = -1;
  private dirty = true;

  constructor(db: Database.Database) {
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
  }

  /** True once after each change; cheap enough to call on every request. */
  changed(): boolean {
    const version = this.dataVersion.get() ?? 0;
    if (version === this.seen && !this.dirty) return false;
    this.seen = version;
    this.dirty = false;
    return true;
  }

  markDirty(): void {
    this.dirty = true;
  }
}
