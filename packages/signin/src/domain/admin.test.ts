import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '@conveyor/kit';
import { SigninError } from '../errors.js';
import { createPasswordHasher } from '../passwords.js';
import { openSqliteStore } from '../store/sqlite/store.js';
import type { RealmStore, SigninStore } from '../store/types.js';
import { createSeedingDeps, makeTempDir, TEST_PASSWORD } from '../testing/harness.js';
import { DEFAULT_SIGN_IN_LIMITS, type SigninDeps } from './deps.js';
import { addDomain, verifyDomain } from './domains.js';
import { addMember, updateMember } from './members.js';
import { addRealmHost, createRealm, ensureSystemRealm, listRealms } from './realms.js';
import { addEmail, createUser, requireUser, setUserPassword, verifyEmail } from './users.js';
import { SessionEnds } from './session-ends.js';

const refusedWith = (code: string) => (error: unknown) => error instanceof SigninError && error.code === code;

describe('administration rules (domain functions on real SQLite files)', () => {
  let dir: string;
  let store: SigninStore;
  let deps: SigninDeps;
  const realmStore = async (id: string | undefined): Promise<RealmStore> => {
    const found = id === undefined ? undefined : await store.realm(id);
    if (found === undefined) throw new Error(`no realm store for ${id}`);
    return found;
  };

  before(async () => {
    dir = makeTempDir();
    store = openSqliteStore({ databasePath: join(dir, 'signin.db'), realmsPath: join(dir, 'realms') });
    const clock = createManualClock();
    await ensureSystemRealm(store, clock, { registerDefaultHosts: false });
    deps = await createSeedingDeps({ store, clock, passwords: await createPasswordHasher(), limits: DEFAULT_SIGN_IN_LIMITS, sessionEnds: new SessionEnds() });
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has the built-in system realm with its settings, roles and admin-ui client', async () => {
    const system = await realmStore('system');
    assert.ok(existsSync(join(dir, 'realms', 'system.db')));
    assert.deepEqual(
      { ...(await system.getSettings()), created_at: 0, updated_at: 0 },
      { slug: 'system', display_name: 'System', kind: 'system', status: 'active', branding: {}, allow_session_duration_choice: true, created_at: 0, updated_at: 0 },
    );
    assert.deepEqual((await system.listRoles()).map((r) => [r.slug, r.name]), [['realm-admin', 'Realm administrator'], ['system-admin', 'System administrator']]);
    const client = await system.findClient('admin-ui');
    assert.equal(client?.access_mode, 'members');
    assert.deepEqual(client?.required_roles, ['realm-admin', 'system-admin']);
  });

  it('registers the default hosts only at server start and only when no host exists', async () => {
    assert.equal(await store.system.countHosts(), 0);
    await ensureSystemRealm(store, deps.clock, { registerDefaultHosts: true });
    assert.deepEqual(await store.system.listHosts('system'), ['127.0.0.1', '[::1]', 'localhost']);
    await ensureSystemRealm(store, deps.clock, { registerDefaultHosts: true });
    assert.equal(await store.system.countHosts(), 3);
  });

  it('creates a realm file named by the realm id, with the built-ins, and keeps slugs and hosts unique', async () => {
    const realm = await createRealm(store, deps.clock, { slug: 'acme', hosts: ['Acme.Test.'], allowSessionDurationChoice: false });
    assert.ok(existsSync(join(dir, 'realms', `${realm.id}.db`)));
    assert.equal((await (await realmStore(realm.id)).findClient('admin-ui'))?.enabled, true);
    assert.equal((await (await realmStore(realm.id)).getSettings())?.display_name, 'acme');
    await assert.rejects(createRealm(store, deps.clock, { slug: 'acme' }), refusedWith('duplicate'));
    await assert.rejects(createRealm(store, deps.clock, { slug: 'other', hosts: ['acme.test'] }), refusedWith('duplicate'));
    await assert.rejects(addRealmHost(store, deps.clock, 'system', 'ACME.test'), refusedWith('duplicate'));
    await assert.rejects(createRealm(store, deps.clock, { slug: 'Bad Slug' }), refusedWith('invalid_request'));
    assert.equal(await store.system.findRealmBySlug('other'), undefined);
    assert.deepEqual((await listRealms(store)).map((r) => [r.slug, r.hosts]), [['acme', ['acme.test']], ['system', ['127.0.0.1', '[::1]', 'localhost']]]);
  });

  it('keeps usernames unique after normalisation and emails unique across users', async () => {
    await createUser(deps, { username: 'Zed', email: { email: 'zed@example.com', verified: true, primary: true } });
    await assert.rejects(createUser(deps, { username: ' zED ' }), refusedWith('duplicate'));
    await assert.rejects(createUser(deps, { username: 'zed2', email: { email: ' ZED@example.com', verified: false, primary: false } }), refusedWith('duplicate'));
    assert.equal(await store.system.findUserByUsername('zed2'), undefined);
    assert.equal((await requireUser(store, 'ZED')).display_name, 'Zed');
  });

  it('clears the other primaries when a primary email is set', async () => {
    await createUser(deps, { username: 'pat', email: { email: 'pat@one.test', verified: true, primary: true } });
    await addEmail(deps, 'pat', { email: 'pat@two.test', verified: true, primary: true });
    const emails = await store.system.listEmails((await requireUser(store, 'pat')).id);
    assert.deepEqual(emails.map((e) => [e.normalized_email, e.is_primary]), [['pat@two.test', true], ['pat@one.test', false]]);
  });

  describe('home realm', () => {
    before(async () => {
      await createRealm(store, deps.clock, { slug: 'north' });
      await createRealm(store, deps.clock, { slug: 'south' });
      await addDomain(deps, { realm: 'north', domain: 'north.test', verified: true });
      await addDomain(deps, { realm: 'north', domain: 'north2.test', verified: true });
      await addDomain(deps, { realm: 'south', domain: 'south.test', verified: true });
    });
    const northId = async () => (await store.system.findRealmBySlug('north'))?.id;
    const homeOf = async (ref: string) => (await requireUser(store, ref)).home_realm_id;

    it('a verified email in a verified-owned domain gives a user without home realm that realm', async () => {
      const user = await createUser(deps, { username: 'nina', email: { email: 'nina@North.test', verified: true, primary: true } });
      assert.equal(user.home_realm_id, await northId());
      await addEmail(deps, 'nina', { email: 'nina@north2.test', verified: true, primary: false });
      assert.equal(await homeOf('nina'), await northId());
    });

    it('an unverified email gives nothing until it is verified', async () => {
      await createUser(deps, { username: 'omar', email: { email: 'omar@north.test', verified: false, primary: true } });
      assert.equal(await homeOf('omar'), null);
      await verifyEmail(deps, 'OMAR@north.test');
      assert.equal(await homeOf('omar'), await northId());
    });

    it('a verified email of another realm is 409 home_realm_conflict and nothing is written', async () => {
      await assert.rejects(addEmail(deps, 'nina', { email: 'nina@south.test', verified: true, primary: true }), (error) => {
        assert.ok(error instanceof SigninError);
        assert.equal(error.status, 409);
        assert.equal(error.code, 'home_realm_conflict');
        assert.match(error.message, /home_realm_conflict/);
        return true;
      });
      assert.equal(await store.system.findEmail('nina@south.test'), undefined);
      assert.equal(await homeOf('nina'), await northId());
      await addEmail(deps, 'nina', { email: 'nina@south.test', verified: false, primary: false });
      await assert.rejects(verifyEmail(deps, 'nina@south.test'), refusedWith('home_realm_conflict'));
      assert.equal((await store.system.findEmail('nina@south.test'))?.verified, false);
    });

    it('verifying a domain later gives its realm to users who have none (decision)', async () => {
      await addDomain(deps, { realm: 'south', domain: 'late.test', verified: false });
      await createUser(deps, { username: 'lee', email: { email: 'lee@late.test', verified: true, primary: true } });
      assert.equal(await homeOf('lee'), null);
      const verified = await verifyDomain(deps, { domain: 'LATE.test.' });
      assert.equal(verified.verified, true);
      assert.equal(await homeOf('lee'), (await store.system.findRealmBySlug('south'))?.id);
    });

    it('keeps a domain owned by one realm only', async () => {
      await assert.rejects(addDomain(deps, { realm: 'south', domain: 'north.test', verified: false }), refusedWith('duplicate'));
      const pending = await addDomain(deps, { realm: 'south', domain: 'pending.test', verified: false });
      assert.match(pending.verification_token ?? '', /^[A-Za-z0-9_-]{32}$/);
    });
  });

  it('replaces a member\'s roles and refuses unknown roles without writing', async () => {
    await createUser(deps, { username: 'mo' });
    const added = await addMember(deps, { realm: 'system', user: 'mo', roles: ['system-admin'] });
    assert.deepEqual(added.roles, ['system-admin']);
    await assert.rejects(updateMember(deps, { realm: 'system', user: 'mo', status: 'suspended', roles: ['nope'] }), refusedWith('invalid_request'));
    assert.equal((await (await realmStore('system')).findMembership((await requireUser(store, 'mo')).id))?.status, 'active');
    assert.deepEqual((await updateMember(deps, { realm: 'system', user: 'mo', roles: ['realm-admin', 'system-admin'] })).roles, ['realm-admin', 'system-admin']);
    await assert.rejects(addMember(deps, { realm: 'system', user: 'mo' }), refusedWith('duplicate'));
  });

  it('stores passwords as argon2id PHC strings with at least OWASP parameters, one per user and type', async () => {
    const hasher = await createPasswordHasher();
    const realDeps = { ...deps, passwords: hasher };
    await createUser(realDeps, { username: 'pw' });
    await setUserPassword(realDeps, 'pw', 'first secret');
    await setUserPassword(realDeps, 'pw', 'second secret');
    const credential = await store.system.findCredential((await requireUser(store, 'pw')).id, 'password');
    assert.match(credential?.secret_hash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(await hasher.verifyPassword(credential?.secret_hash ?? '', 'second secret'), true);
    assert.equal(await hasher.verifyPassword(credential?.secret_hash ?? '', 'first secret'), false);
    assert.equal(await hasher.verifyPassword('$2b$10$abcdefghijklmnopqrstuv', TEST_PASSWORD), false);
    await assert.rejects(setUserPassword(realDeps, 'pw', 'x'.repeat(1025)), refusedWith('invalid_request'));
  });
});
