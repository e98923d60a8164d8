import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RealmStore } from './realm-store.js';
import { SystemStore } from './system-store.js';

export interface StorePaths {
  databasePath: string;
  realmsPath: string;
}

/**
 * The sign-in service's storage: the system file plus one file per realm, named by the realm's id.
 * Realm connections are opened once and kept, so a request never pays for opening a file.
 */
export class SigninStore {
  readonly system: SystemStore;
  private readonly realmStores = new Map<string, RealmStore>();

  constructor(private readonly paths: StorePaths) {
    mkdirSync(dirname(paths.databasePath), { recursive: true });
    mkdirSync(paths.realmsPath, { recursive: true });
    this.system = new SystemStore(paths.databasePath);
  }

  private realmPath(realmId: string): string {
    // Ids are generated here (uuid or `system`); the check keeps a bad id from naming another path.
    if (!/^[a-z0-9-]+$/.test(realmId)) throw new Error(`invalid realm id '${realmId}'`);
    return join(this.paths.realmsPath, `${realmId}.db`);
  }

  /** The realm's store, or undefined when its file does not exist. */
  realm(realmId: string): RealmStore | undefined {
    const open = this.realmStores.get(realmId);
    if (open !== undefined) return open;
    const path = this.realmPath(realmId);
    if (!existsSync(path)) return undefined;
    const store = new RealmStore(path, { create: false });
    this.realmStores.set(realmId, store);
    return store;
  }

  /** Creates (or opens) the realm's file with its schema. */
  createRealmFile(realmId: string): RealmStore {
    const store = this.realmStores.get(realmId) ?? new RealmStore(this.realmPath(realmId), { create: true });
    this.realmStores.set(realmId, store);
    return store;
  }

  /** Undoes `createRealmFile` when registering the realm fails. */
  removeRealmFile(realmId: string): void {
    this.realmStores.get(realmId)?.close();
    this.realmStores.delete(realmId);
    const path = this.realmPath(realmId);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
  }

  close(): void {
    for (const store of this.realmStores.values()) store.close();
    this.realmStores.clear();
    this.system.close();
  }
}

export function openStore(paths: StorePaths): SigninStore {
  return new SigninStore(paths);
}
