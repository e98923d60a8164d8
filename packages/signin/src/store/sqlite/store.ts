import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { RealmStore, SigninStore } from '../types.js';
import { SqliteRealmStore } from './realm-store.js';
import { SqliteSystemStore } from './system-store.js';

export interface StorePaths {
  databasePath: string;
  realmsPath: string;
}

/**
 * The SQLite storage: the system file plus one file per realm, named by the realm's id. Realm
 * connections are opened once and kept, so a request never pays for opening a file.
 */
export class SqliteSigninStore implements SigninStore {
  readonly system: SqliteSystemStore;
  private readonly realmStores = new Map<string, SqliteRealmStore>();

  constructor(private readonly paths: StorePaths) {
    mkdirSync(dirname(paths.databasePath), { recursive: true });
    mkdirSync(paths.realmsPath, { recursive: true });
    this.system = new SqliteSystemStore(paths.databasePath);
  }

  private realmPath(realmId: string): string {
    // Ids are generated here (uuid or `system`); the check keeps a bad id from naming another path.
    if (!/^[a-z0-9-]+$/.test(realmId)) throw new Error(`invalid realm id '${realmId}'`);
    return join(this.paths.realmsPath, `${realmId}.db`);
  }

  async realm(realmId: string): Promise<RealmStore | undefined> {
    const open = this.realmStores.get(realmId);
    if (open !== undefined) return open;
    const path = this.realmPath(realmId);
    if (!existsSync(path)) return undefined;
    const store = new SqliteRealmStore(path, { create: false });
    this.realmStores.set(realmId, store);
    return store;
  }

  async createRealmData(realmId: string): Promise<RealmStore> {
    const store = this.realmStores.get(realmId) ?? new SqliteRealmStore(this.realmPath(realmId), { create: true });
    this.realmStores.set(realmId, store);
    return store;
  }

  async removeRealmData(realmId: string): Promise<void> {
    await this.realmStores.get(realmId)?.close();
    this.realmStores.delete(realmId);
    const path = this.realmPath(realmId);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  }

  async close(): Promise<void> {
    for (const store of this.realmStores.values()) await store.close();
    this.realmStores.clear();
    await this.system.close();
  }
}

export function openSqliteStore(paths: StorePaths): SigninStore {
  return new SqliteSigninStore(paths);
}
