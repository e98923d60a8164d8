import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../clock.js';
import { SigninError } from '../errors.js';
import { addRealmHost, createRealm, ensureSystemRealm, updateRealm } from '../domain/realms.js';
import type { Session } from '../domain/types.js';
import { makeTempDir } from '../testing/harness.js';
import { openStore, type SigninStore } from './store.js';

const session = (id: string, expiresAt: number): Session => ({
  id,
  user_id: 'u',
  ttl: 60,
  created_at: 0,
  expires_at: expiresAt,
  last_seen_at: 0,
  user_agent: null,
  ip: null,
});

describe('SQLite store', () => {
  let dir: string;
  let server: SigninStore;
  let cli: SigninStore;
  const clock = createManualClock();

  before(() => {
    dir = makeTempDir();
    const paths = { databasePath: join(dir, 'data', 'signin.db'), realmsPath: join(dir, 'data', 'realms') };
    server = openStore(paths);
    ensureSystemRealm(server, clock, { registerDefaultHosts: true });
    // A second store on the same files plays the admin CLI's part: separate connections.
    cli = openStore(paths);
  });
  after(() => {
    server.close();
    cli.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs in WAL mode so the CLI and the server can share the files', () => {
    assert.ok(existsSync(join(dir, 'data', 'signin.db-wal')));
  });

  it('sees realms, hosts and settings written by another connection at the next read', () => {
    assert.equal(server.system.findRealmByHost('acme.test'), undefined);
    const realm = createRealm(cli, clock, { slug: 'acme', hosts: ['acme.test'] });
    assert.equal(server.system.findRealmByHost('acme.test')?.id, realm.id);
    assert.equal(server.realm(realm.id)?.getSettings()?.display_name, 'acme');
    updateRealm(cli, clock, 'acme', { displayName: 'Acme' });
    assert.equal(server.realm(realm.id)?.getSettings()?.display_name, 'Acme');
    addRealmHost(cli, clock, 'acme', 'www.acme.test');
    assert.equal(server.system.findRealmByHost('www.acme.test')?.slug, 'acme');
  });

  it('answers undefined for a realm whose file does not exist, and refuses ids that are not file names', () => {
    assert.equal(server.realm('no-such-realm'), undefined);
    assert.throws(() => server.realm('../system'));
  });

  it('createSession deletes every expired session of the realm (expires_at <= now) before inserting', () => {
    const realm = server.realm('system');
    realm?.createSession(session('a', 1000), 0);
    realm?.createSession(session('b', 2000), 0);
    realm?.createSession(session('c', 3000), 2000);
    assert.equal(realm?.findSession('a'), undefined);
    assert.equal(realm?.findSession('b'), undefined);
    assert.ok(realm?.findSession('c'));
  });

  it('reports duplicates as typed errors, never raw driver errors', () => {
    assert.throws(
      () => server.system.insertRealm({ id: 'x1', slug: 'acme', owner_user_id: null, created_at: 0 }, []),
      (error) => error instanceof SigninError && error.code === 'duplicate',
    );
    assert.throws(
      () => server.system.insertHost('acme.test', 'system', 0),
      (error) => error instanceof SigninError && error.code === 'duplicate',
    );
  });
});
