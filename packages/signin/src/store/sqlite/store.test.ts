import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '@conveyor/kit';
import { addRealmHost, createRealm, ensureSystemRealm, updateRealm } from '../../domain/realms.js';
import { makeTempDir } from '../../testing/harness.js';
import type { SigninStore } from '../types.js';
import { openSqliteStore } from './store.js';

// What only the SQLite store has: files, WAL, and caches revalidated across connections. The rules
// every store shares are in ../contract.ts (run by sqlite.contract.test.ts).

describe('SQLite store', () => {
  let dir: string;
  let server: SigninStore;
  let cli: SigninStore;
  const clock = createManualClock();

  before(async () => {
    dir = makeTempDir();
    const paths = { databasePath: join(dir, 'data', 'signin.db'), realmsPath: join(dir, 'data', 'realms') };
    server = openSqliteStore(paths);
    await ensureSystemRealm(server, clock, { registerDefaultHosts: true });
    // A second store on the same files plays the admin CLI's part: separate connections.
    cli = openSqliteStore(paths);
  });
  after(async () => {
    await server.close();
    await cli.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs in WAL mode so the CLI and the server can share the files', () => {
    assert.ok(existsSync(join(dir, 'data', 'signin.db-wal')));
  });

  it('sees realms, hosts and settings written by another connection at the next read', async () => {
    assert.equal(await server.system.findRealmByHost('acme.test'), undefined);
    const realm = await createRealm(cli, clock, { slug: 'acme', hosts: ['acme.test'] });
    assert.equal((await server.system.findRealmByHost('acme.test'))?.id, realm.id);
    assert.equal((await (await server.realm(realm.id))?.getSettings())?.display_name, 'acme');
    await updateRealm(cli, clock, 'acme', { displayName: 'Acme' });
    assert.equal((await (await server.realm(realm.id))?.getSettings())?.display_name, 'Acme');
    await addRealmHost(cli, clock, 'acme', 'www.acme.test');
    assert.equal((await server.system.findRealmByHost('www.acme.test'))?.slug, 'acme');
  });

  it('answers undefined for a realm whose file does not exist, and refuses ids that are not file names', async () => {
    assert.equal(await server.realm('no-such-realm'), undefined);
    await assert.rejects(server.realm('../system'));
  });
});
