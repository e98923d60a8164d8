// The storage contract suite: every SigninStore implementation runs these same tests (today SQLite,
// from store/sqlite/sqlite.contract.test.ts). Compiled with the package; not a test file itself.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SigninError } from '../errors.js';
import type { AttemptKey } from '../domain/rules/attempt-rules.js';
import type { Realm, RealmSettings, Session, User, UserEmail } from '../domain/types.js';
import type { RealmStore, SigninStore } from './types.js';

export interface ContractHarness {
  /** A store on the shared data. */
  store: SigninStore;
  /** A second, independent store on the same data (another process, another connection pool). */
  peer: SigninStore;
  close(): Promise<void>;
}

const duplicateError = (error: unknown) => error instanceof SigninError && error.code === 'duplicate';

const user = (id: string, homeRealmId: string | null = null): User => ({
  id,
  username: id,
  display_name: id,
  status: 'active',
  home_realm_id: homeRealmId,
  profile: {},
  last_login_at: null,
  created_at: 1,
  updated_at: 1,
});

const email = (id: string, userId: string, address: string, options: { verified?: boolean; primary?: boolean } = {}): UserEmail => ({
  id,
  user_id: userId,
  email: address,
  normalized_email: address.toLowerCase(),
  verified: options.verified ?? true,
  is_primary: options.primary ?? false,
  created_at: 1,
  verified_at: options.verified === false ? null : 1,
});

const session = (id: string, userId: string, expiresAt: number, lastSeenAt = 0): Session => ({
  id,
  user_id: userId,
  ttl: 600,
  created_at: 0,
  expires_at: expiresAt,
  last_seen_at: lastSeenAt,
  user_agent: null,
  ip: null,
});

const settings = (slug: string): RealmSettings => ({
  slug,
  display_name: slug,
  kind: 'realm',
  status: 'active',
  branding: {},
  allow_session_duration_choice: true,
  created_at: 1,
  updated_at: 1,
});

async function createRealmData(store: SigninStore, id: string): Promise<RealmStore> {
  const realm = await store.createRealmData(id);
  const now = 1;
  await realm.initialise({
    settings: settings(id),
    roles: [{ id: `${id}-admin`, slug: 'realm-admin', name: 'Realm administrator', created_at: now }],
    client: {
      id: `${id}-client`,
      client_id: 'admin-ui',
      name: 'Admin UI',
      redirect_uris: [],
      scopes: 'openid profile email',
      access_mode: 'members',
      enabled: true,
      created_at: now,
      updated_at: now,
      required_roles: ['realm-admin'],
    },
    clientRoleIds: [`${id}-admin`],
  });
  const record: Realm = { id, slug: id, owner_user_id: null, created_at: now };
  await store.system.insertRealm(record, [`${id}.test`]);
  return realm;
}

/** Registers the contract tests for one store implementation. */
export function registerStoreContract(name: string, open: () => Promise<ContractHarness>): void {
  describe(`store contract: ${name}`, () => {
    let harness: ContractHarness;
    let store: SigninStore;
    let realm: RealmStore;

    before(async () => {
      harness = await open();
      store = harness.store;
      realm = await createRealmData(store, 'contract');
    });
    after(async () => harness.close());

    describe('realms, users, emails', () => {
      it('refuses a taken slug or host as `duplicate` and writes nothing', async () => {
        await assert.rejects(store.system.insertRealm({ id: 'other', slug: 'contract', owner_user_id: null, created_at: 1 }, []), duplicateError);
        await assert.rejects(store.system.insertRealm({ id: 'other', slug: 'other', owner_user_id: null, created_at: 1 }, ['fresh.test', 'contract.test']), duplicateError);
        assert.equal(await store.system.findRealmBySlug('other'), undefined);
        assert.equal(await store.system.findRealmByHost('fresh.test'), undefined);
        await assert.rejects(store.system.insertHost('contract.test', 'contract', 1), duplicateError);
      });

      it('creates a user with email and credential all or nothing; usernames and emails are unique', async () => {
        await store.system.insertUser({ user: user('u1'), normalizedUsername: 'u1', email: email('e1', 'u1', 'U1@example.test', { primary: true }) });
        await assert.rejects(store.system.insertUser({ user: user('u1b'), normalizedUsername: 'u1' }), duplicateError);
        await assert.rejects(store.system.insertUser({ user: user('u2'), normalizedUsername: 'u2', email: email('e2', 'u2', 'u1@example.test') }), duplicateError);
        assert.equal(await store.system.findUserById('u2'), undefined);
        assert.equal((await store.system.findUserByVerifiedEmail('u1@example.test'))?.id, 'u1');
      });

      it('finds users by verified email only; a new primary email clears the others', async () => {
        await store.system.insertEmail(email('e3', 'u1', 'late@example.test', { verified: false }), undefined);
        assert.equal(await store.system.findUserByVerifiedEmail('late@example.test'), undefined);
        await store.system.insertEmail(email('e4', 'u1', 'new@example.test', { primary: true }), undefined);
        const emails = await store.system.listEmails('u1');
        assert.deepEqual(emails.filter((e) => e.is_primary).map((e) => e.id), ['e4']);
        assert.equal(emails[0]?.id, 'e4');
      });

      it('keeps one credential per (user, type): a new one replaces the secret', async () => {
        const credential = { id: 'c1', user_id: 'u1', type: 'password', secret_hash: 'one', created_at: 1, updated_at: 1 };
        await store.system.upsertCredential(credential);
        await store.system.upsertCredential({ ...credential, id: 'c2', secret_hash: 'two', updated_at: 2 });
        assert.equal((await store.system.findCredential('u1', 'password'))?.secret_hash, 'two');
      });

      it('lists users by verified email domain (trailing dot and case aside) and gives a home realm only to users without one', async () => {
        await store.system.insertUser({ user: user('h1'), normalizedUsername: 'h1', email: email('he1', 'h1', 'h1@home.test') });
        await store.system.insertUser({ user: user('h2', 'contract'), normalizedUsername: 'h2', email: email('he2', 'h2', 'h2@home.test.') });
        await store.system.insertUser({ user: user('h3'), normalizedUsername: 'h3', email: email('he3', 'h3', 'h3@sub.home.test') });
        await store.system.insertUser({ user: user('h4'), normalizedUsername: 'h4', email: email('he4', 'h4', 'h4@home.test', { verified: false }) });
        assert.deepEqual(await store.system.listUserIdsWithVerifiedEmailDomain('home.test'), ['h1', 'h2']);
        await createRealmData(store, 'home');
        await store.system.insertDomain({ domain: 'home.test', realm_id: 'home', verified: false, verification_token: 't', verified_at: null, created_at: 1 }, []);
        await store.system.markDomainVerified('home.test', 'home', 2, ['h1', 'h2']);
        assert.equal((await store.system.findUserById('h1'))?.home_realm_id, 'home');
        assert.equal((await store.system.findUserById('h2'))?.home_realm_id, 'contract');
        assert.equal((await store.system.findDomain('home.test'))?.verified, true);
      });
    });

    describe('sessions', () => {
      it('deletes every expired session (expires_at <= now) before storing a new one', async () => {
        await realm.createSession(session('s-a', 'x', 1000), 0);
        await realm.createSession(session('s-b', 'x', 2000), 0);
        await realm.createSession(session('s-c', 'x', 3000), 2000);
        assert.equal(await realm.findSession('s-a'), undefined);
        assert.equal(await realm.findSession('s-b'), undefined);
        assert.ok(await realm.findSession('s-c'));
      });

      it('touch: missing, expired (deleted), kept, or refreshed once 60 s have passed', async () => {
        assert.deepEqual(await realm.touchSession('nope', 0), { state: 'missing' });
        await realm.createSession(session('t-old', 'x', 5000, 0), 0);
        assert.deepEqual(await realm.touchSession('t-old', 5000), { state: 'expired' });
        assert.equal(await realm.findSession('t-old'), undefined);
        await realm.createSession(session('t-live', 'x', 500_000, 0), 0);
        assert.deepEqual(await realm.touchSession('t-live', 59_999), { state: 'live', session: session('t-live', 'x', 500_000, 0), refreshed: false });
        const refreshed = await realm.touchSession('t-live', 60_000);
        assert.deepEqual(refreshed, { state: 'live', session: session('t-live', 'x', 660_000, 60_000), refreshed: true });
        assert.deepEqual(await realm.findSession('t-live'), session('t-live', 'x', 660_000, 60_000));
      });

      it('race: of many concurrent touches due for a refresh, exactly one refreshes, on both stores', async () => {
        await realm.createSession(session('t-race', 'x', 500_000, 0), 0);
        const peerRealm = await harness.peer.realm('contract');
        assert.ok(peerRealm);
        const touches = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? realm : peerRealm).touchSession('t-race', 120_000)));
        assert.equal(touches.filter((t) => t.state === 'live' && t.refreshed).length, 1);
        for (const touch of touches) assert.deepEqual(touch.state === 'live' ? touch.session.expires_at : -1, 720_000);
      });

      it('race: a touch never brings back a session deleted at the same time', async () => {
        await realm.createSession(session('t-gone', 'x', 500_000, 0), 0);
        const peerRealm = await harness.peer.realm('contract');
        await Promise.all([realm.touchSession('t-gone', 120_000), peerRealm?.deleteSession('t-gone'), realm.touchSession('t-gone', 120_000)]);
        assert.equal(await realm.findSession('t-gone'), undefined);
      });

      it("deletes one user's sessions only", async () => {
        await realm.createSession(session('d-1', 'leaver', 900_000), 0);
        await realm.createSession(session('d-2', 'leaver', 900_000), 0);
        await realm.createSession(session('d-3', 'stayer', 900_000), 0);
        assert.equal(await realm.deleteUserSessions('leaver'), 2);
        assert.equal(await realm.findSession('d-1'), undefined);
        assert.ok(await realm.findSession('d-3'));
      });

      it('a settings update with endSessions deletes all sessions; a disabled realm takes no new session', async () => {
        const other = await createRealmData(store, 'closing');
        await other.createSession(session('r-1', 'x', 900_000), 0);
        await other.updateSettings({ status: 'disabled' }, 2, { endSessions: true });
        assert.equal(await other.countSessions(), 0);
        assert.equal(await other.createSession(session('r-2', 'x', 900_000), 0), false);
        assert.equal(await other.countSessions(), 0);
        await other.updateSettings({ status: 'active' }, 3);
        assert.equal(await other.createSession(session('r-3', 'x', 900_000), 0), true);
        assert.equal((await other.getSettings())?.status, 'active');
      });
    });

    describe('sign-in attempt counters', () => {
      const key = (name: string, maxFailures = 10): AttemptKey => ({ key: `identifier:${name}`, maxFailures });

      it('race: 50 concurrent reservations from two stores let exactly the budget through', async () => {
        const keys = [key('race')];
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? store : harness.peer).system.reserveAttempts(keys, 1000)),
        );
        assert.equal(results.filter((r) => r.allowed).length, 10);
        assert.ok(results.every((r) => r.allowed || r.retryAfterMs >= 1000));
      });

      it('race: concurrent failure settlements are all counted (no lost update)', async () => {
        const keys = [key('settle', 3)];
        for (let i = 0; i < 3; i += 1) assert.equal((await store.system.reserveAttempts(keys, 1000)).allowed, true);
        await Promise.all(
          Array.from({ length: 3 }, (_, i) => (i % 2 === 0 ? store : harness.peer).system.settleAttempts([{ ...key('settle', 3), outcome: 'failure' }], 1000)),
        );
        assert.deepEqual(await store.system.reserveAttempts(keys, 1000), { allowed: false, retryAfterMs: 30_000 });
      });

      it('is all or nothing across keys: a refused key reserves nothing on the others', async () => {
        const blocked = key('blocked', 1);
        const free = key('free', 1);
        assert.equal((await store.system.reserveAttempts([blocked], 0)).allowed, true);
        await store.system.settleAttempts([{ ...blocked, outcome: 'failure' }], 0);
        assert.deepEqual(await store.system.reserveAttempts([free, blocked], 1), { allowed: false, retryAfterMs: 29_999 });
        // `free` was not reserved: one attempt is still allowed for it.
        assert.equal((await store.system.reserveAttempts([free], 1)).allowed, true);
      });

      it('a reset forgets the failures; counters are stored, so the peer shares them', async () => {
        const shared = key('shared', 2);
        const keys = [shared];
        for (let i = 0; i < 2; i += 1) {
          assert.equal((await store.system.reserveAttempts(keys, 0)).allowed, true);
          await store.system.settleAttempts([{ ...shared, outcome: 'failure' }], 0);
        }
        assert.equal((await harness.peer.system.reserveAttempts(keys, 0)).allowed, false);
        assert.equal((await harness.peer.system.reserveAttempts(keys, 30_000)).allowed, true);
        await harness.peer.system.settleAttempts([{ ...shared, outcome: 'reset' }], 30_000);
        for (let i = 0; i < 2; i += 1) assert.equal((await store.system.reserveAttempts(keys, 30_000)).allowed, true);
      });
    });
  });
}
