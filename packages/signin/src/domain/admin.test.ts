import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createManualClock } from '../clock.js';
import { SigninError } from '../errors.js';
import { createPasswordHasher } from '../passwords.js';
import { openStore, type SigninStore } from '../store/store.js';
import { createSeedingDeps, makeTempDir, TEST_PASSWORD } from '../testing/harness.js';
import type { SigninDeps } from './deps.js';
import { addDomain, verifyDomain } from './domains.js';
import { addMember, updateMember } from './members.js';
import { addRealmHost, createRealm, ensureSystemRealm, listRealms } from './realms.js';
import { addEmail, createUser, requireUser, setUserPassword, verifyEmail } from './users.js';

const refusedWith = (code: string) => (error: unknown) => error instanceof SigninError && error.code === code;

describe('administration rules (domain functions on real SQLite files)', () => {
  let dir: string;
  let store: SigninStore;
  let deps: SigninDeps;

  before(async () => {
    dir = makeTempDir();
    store = openStore({ databasePath: join(dir, 'signin.db'), realmsPath: join(dir, 'realms') });
    const clock = createManualClock();
    ensureSystemRealm(store, clock, { registerDefaultHosts: false });
    deps = await createSeedingDeps({ store, clock, passwords: await createPasswordHasher() });
  });
  after(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has the built-in system realm with its settings, roles and admin-ui client', () => {
    const system = store.realm('system');
    assert.ok(existsSync(join(dir, 'realms', 'system.db')));
    assert.deepEqual(
      { ...system?.getSettings(), created_at: 0, updated_at: 0 },
      { slug: 'system', display_name: 'System', kind: 'system', status: 'active', branding: {}, allow_session_duration_choice: true, created_at: 0, updated_at: 0 },
    );
    assert.deepEqual(system?.listRoles().map((r) => [r.slug, r.name]), [['realm-admin', 'Realm administrator'], ['system-admin', 'System administrator']]);
    const client = system?.findClient('admin-ui');
    assert.equal(client?.access_mode, 'members');
    assert.deepEqual(client?.required_roles, ['realm-admin', 'system-admin']);
  });

  it('registers the default hosts only at server start and only when no host exists', () => {
    assert.equal(store.system.countHosts(), 0);
    ensureSystemRealm(store, deps.clock, { registerDefaultHosts: true });
    assert.deepEqual(store.system.listHosts('system'), ['127.0.0.1', '[::1]', 'localhost']);
    ensureSystemRealm(store, deps.clock, { registerDefaultHosts: true });
    assert.equal(store.system.countHosts(), 3);
  });

  it('creates a realm file named by the realm id, with the built-ins, and keeps slugs and hosts unique', () => {
    const realm = createRealm(store, deps.clock, { slug: 'acme', hosts: ['Acme.Test.'], allowSessionDurationChoice: false });
    assert.ok(existsSync(join(dir, 'realms', `${realm.id}.db`)));
    assert.equal(store.realm(realm.id)?.findClient('admin-ui')?.enabled, true);
    assert.equal(store.realm(realm.id)?.getSettings()?.display_name, 'acme');
    assert.throws(() => createRealm(store, deps.clock, { slug: 'acme' }), refusedWith('duplicate'));
    assert.throws(() => createRealm(store, deps.clock, { slug: 'other', hosts: ['acme.test'] }), refusedWith('duplicate'));
    assert.throws(() => addRealmHost(store, deps.clock, 'system', 'ACME.test'), refusedWith('duplicate'));
    assert.throws(() => createRealm(store, deps.clock, { slug: 'Bad Slug' }), refusedWith('invalid_request'));
    assert.equal(store.system.findRealmBySlug('other'), undefined);
    assert.deepEqual(listRealms(store).map((r) => [r.slug, r.hosts]), [['acme', ['acme.test']], ['system', ['127.0.0.1', '[::1]', 'localhost']]]);
  });

  it('keeps usernames unique after normalisation and emails unique across users', async () => {
    await createUser(deps, { username: 'Zed', email: { email: 'zed@example.com', verified: true, primary: true } });
    await assert.rejects(createUser(deps, { username: ' zED ' }), refusedWith('duplicate'));
    await assert.rejects(createUser(deps, { username: 'zed2', email: { email: ' ZED@example.com', verified: false, primary: false } }), refusedWith('duplicate'));
    assert.equal(store.system.findUserByUsername('zed2'), undefined);
    assert.equal(requireUser(store, 'ZED').display_name, 'Zed');
  });

  it('clears the other primaries when a primary email is set', async () => {
    await createUser(deps, { username: 'pat', email: { email: 'pat@one.test', verified: true, primary: true } });
    addEmail(deps, 'pat', { email: 'pat@two.test', verified: true, primary: true });
    const emails = store.system.listEmails(requireUser(store, 'pat').id);
    assert.deepEqual(emails.map((e) => [e.normalized_email, e.is_primary]), [['pat@two.test', true], ['pat@one.test', false]]);
  });

  describe('home realm', () => {
    before(() => {
      createRealm(store, deps.clock, { slug: 'north' });
      createRealm(store, deps.clock, { slug: 'south' });
      addDomain(deps, { realm: 'north', domain: 'north.test', verified: true });
      addDomain(deps, { realm: 'north', domain: 'north2.test', verified: true });
      addDomain(deps, { realm: 'south', domain: 'south.test', verified: true });
    });
    const northId = () => store.system.findRealmBySlug('north')?.id;

    it('a verified email in a verified-owned domain gives a user without home realm that realm', async () => {
      const user = await createUser(deps, { username: 'nina', email: { email: 'nina@North.test', verified: true, primary: true } });
      assert.equal(user.home_realm_id, northId());
      addEmail(deps, 'nina', { email: 'nina@north2.test', verified: true, primary: false });
      assert.equal(requireUser(store, 'nina').home_realm_id, northId());
    });

    it('an unverified email gives nothing until it is verified', async () => {
      await createUser(deps, { username: 'omar', email: { email: 'omar@north.test', verified: false, primary: true } });
      assert.equal(requireUser(store, 'omar').home_realm_id, null);
      verifyEmail(deps, 'OMAR@north.test');
      assert.equal(requireUser(store, 'omar').home_realm_id, northId());
    });

    it('a verified email of another realm is 409 home_realm_conflict and nothing is written', async () => {
      assert.throws(() => addEmail(deps, 'nina', { email: 'nina@south.test', verified: true, primary: true }), (error) => {
        assert.ok(error instanceof SigninError);
        assert.equal(error.status, 409);
        assert.equal(error.code, 'home_realm_conflict');
        assert.match(error.message, /home_realm_conflict/);
        return true;
      });
      assert.equal(store.system.findEmail('nina@south.test'), undefined);
      assert.equal(requireUser(store, 'nina').home_realm_id, northId());
      addEmail(deps, 'nina', { email: 'nina@south.test', verified: false, primary: false });
      assert.throws(() => verifyEmail(deps, 'nina@south.test'), refusedWith('home_realm_conflict'));
      assert.equal(store.system.findEmail('nina@south.test')?.verified, false);
    });

    it('verifying a domain later gives its realm to users who have none (decision)', async () => {
      addDomain(deps, { realm: 'south', domain: 'late.test', verified: false });
      await createUser(deps, { username: 'lee', email: { email: 'lee@late.test', verified: true, primary: true } });
      assert.equal(requireUser(store, 'lee').home_realm_id, null);
      const verified = verifyDomain(deps, { domain: 'LATE.test.' });
      assert.equal(verified.verified, true);
      assert.equal(requireUser(store, 'lee').home_realm_id, store.system.findRealmBySlug('south')?.id);
    });

    it('keeps a domain owned by one realm only', () => {
      assert.throws(() => addDomain(deps, { realm: 'south', domain: 'north.test', verified: false }), refusedWith('duplicate'));
      const pending = addDomain(deps, { realm: 'south', domain: 'pending.test', verified: false });
      assert.match(pending.verification_token ?? '', /^[A-Za-z0-9_-]{32}$/);
    });
  });

  it('replaces a member\'s roles and refuses unknown roles without writing', async () => {
    await createUser(deps, { username: 'mo' });
    const added = addMember(deps, { realm: 'system', user: 'mo', roles: ['system-admin'] });
    assert.deepEqual(added.roles, ['system-admin']);
    assert.throws(() => updateMember(deps, { realm: 'system', user: 'mo', status: 'suspended', roles: ['nope'] }), refusedWith('invalid_request'));
    assert.equal(store.realm('system')?.findMembership(requireUser(store, 'mo').id)?.status, 'active');
    assert.deepEqual(updateMember(deps, { realm: 'system', user: 'mo', roles: ['realm-admin', 'system-admin'] }).roles, ['realm-admin', 'system-admin']);
    assert.throws(() => addMember(deps, { realm: 'system', user: 'mo' }), refusedWith('duplicate'));
  });

  it('stores passwords as argon2id PHC strings with at least OWASP parameters, one per user and type', async () => {
    const hasher = await createPasswordHasher();
    const realDeps = { ...deps, passwords: hasher };
    await createUser(realDeps, { username: 'pw' });
    await setUserPassword(realDeps, 'pw', 'first secret');
    await setUserPassword(realDeps, 'pw', 'second secret');
    const credential = store.system.findCredential(requireUser(store, 'pw').id, 'password');
    assert.match(credential?.secret_hash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(await hasher.verifyPassword(credential?.secret_hash ?? '', 'second secret'), true);
    assert.equal(await hasher.verifyPassword(credential?.secret_hash ?? '', 'first secret'), false);
    assert.equal(await hasher.verifyPassword('$2b$10$abcdefghijklmnopqrstuv', TEST_PASSWORD), false);
    await assert.rejects(setUserPassword(realDeps, 'pw', 'x'.repeat(1025)), refusedWith('invalid_request'));
  });
});
