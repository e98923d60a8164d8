import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { createManualClock } from '@conveyor/kit';
import { addMember, updateMember } from '../../domain/members.js';
import { createRealm, updateRealm } from '../../domain/realms.js';
import { setUserPassword, updateUser } from '../../domain/users.js';
import { openSqliteStore } from '../../store/sqlite/store.js';
import { cookieValue, seedUser, send, startTestServer, TEST_PASSWORD, type TestServer } from '../../testing/harness.js';

const digest = (token: string) => createHash('sha256').update(token).digest('hex');

describe('sessions: GET /api/v1/session and POST /api/v1/logout', () => {
  let server: TestServer;
  let aliceId = '';

  const getSession = (token: string | undefined, headers: Record<string, string> = {}, path = '/api/v1/session') =>
    send(server.port, { path, headers: token === undefined ? headers : { cookie: `auth_session_system=${token}`, ...headers } });
  const findSystemSession = async (id: string) => (await server.deps.store.realm('system'))?.findSession(id);

  async function signIn(identifier: string, headers: Record<string, string> = {}): Promise<string> {
    const res = await send(server.port, { method: 'POST', path: '/api/v1/login/password', body: { identifier, password: TEST_PASSWORD }, headers });
    assert.equal(res.status, 200, res.text);
    const name = headers.host === 'acme.test' ? 'auth_session_acme' : 'auth_session_system';
    return cookieValue(res.setCookies, name) ?? '';
  }

  before(async () => {
    server = await startTestServer();
    await createRealm(server.deps.store, server.deps.clock, { slug: 'acme', displayName: 'Acme', hosts: ['acme.test'] });
    aliceId = await seedUser(server.seedingDeps, { username: 'alice', roles: ['system-admin', 'realm-admin'] });
    await addMember(server.deps, { realm: 'acme', user: aliceId });
  });
  after(async () => server.close());
  beforeEach(() => updateUser(server.deps, 'alice', { status: 'active' }));

  it('answers realm, user, sorted roles and expires_at for a live session, without re-issuing the cookie', async () => {
    const token = await signIn('alice');
    const signedInAt = server.clock.now();
    server.clock.advance(59_999);
    const res = await getSession(token);
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      realm: { slug: 'system', display_name: 'System', branding: {}, allow_session_duration_choice: true },
      user: { id: aliceId, username: 'alice', display_name: 'alice' },
      roles: ['realm-admin', 'system-admin'],
      expires_at: signedInAt + 43_200_000,
    });
    assert.equal(res.setCookies.length, 0);
    assert.equal((await findSystemSession(digest(token)))?.last_seen_at, signedInAt);
  });

  it('live, 60 s since last seen: last_seen_at and expires_at move, the cookie is re-issued with the ttl', async () => {
    const token = await signIn('alice');
    server.clock.advance(60_000);
    const now = server.clock.now();
    const res = await getSession(token, { 'x-forwarded-proto': 'https' });
    assert.equal(res.status, 200);
    assert.equal(res.json.expires_at, now + 43_200_000);
    assert.deepEqual(res.setCookies, [`auth_session_system=${token}; Max-Age=43200; Path=/; HttpOnly; SameSite=Lax; Secure`]);
    const row = (await findSystemSession(digest(token)));
    assert.equal(row?.last_seen_at, now);
    assert.equal(row?.expires_at, now + 43_200_000);
    // The next minute of activity does not move it again.
    server.clock.advance(30_000);
    const again = await getSession(token);
    assert.equal(again.json.expires_at, now + 43_200_000);
    assert.equal(again.setCookies.length, 0);
  });

  it('live, expires_at <= now: deleted, unauthenticated', async () => {
    const token = await signIn('alice');
    server.clock.advance(43_200_000);
    const res = await getSession(token);
    assert.equal(res.status, 401);
    assert.deepEqual(res.json, { error: 'not_authenticated', message: 'no valid session' });
    assert.equal((await findSystemSession(digest(token))), undefined);
  });

  it('live, user not active (disabled by another process, sessions left): deleted, cookie cleared with Max-Age=0, unauthenticated', async () => {
    const token = await signIn('alice');
    const other = new Database(server.databasePath);
    other.prepare("UPDATE users SET status = 'disabled' WHERE id = ?").run(aliceId);
    other.close();
    const res = await getSession(token);
    assert.equal(res.status, 401);
    assert.equal(res.json.error, 'not_authenticated');
    assert.deepEqual(res.setCookies, ['auth_session_system=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
    assert.equal((await findSystemSession(digest(token))), undefined);
  });

  it('live, user missing (deleted by another process): deleted, cookie cleared, unauthenticated', async () => {
    const userId = await seedUser(server.seedingDeps, { username: 'temp' });
    const token = await signIn('temp');
    const other = new Database(server.databasePath);
    other.prepare('DELETE FROM credentials WHERE user_id = ?').run(userId);
    other.prepare('DELETE FROM users WHERE id = ?').run(userId);
    other.close();
    const res = await getSession(token);
    assert.equal(res.status, 401);
    assert.deepEqual(res.setCookies, ['auth_session_system=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
    assert.equal((await findSystemSession(digest(token))), undefined);
  });

  for (const status of ['suspended', 'invited'] as const) {
    it(`live, membership ${status}: deleted, cookie cleared, unauthenticated`, async () => {
      const token = await signIn('alice');
      await updateMember(server.deps, { realm: 'system', user: 'alice', status });
      const res = await getSession(token);
      await updateMember(server.deps, { realm: 'system', user: 'alice', status: 'active' });
      assert.equal(res.status, 401);
      assert.deepEqual(res.setCookies, ['auth_session_system=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
      assert.equal((await findSystemSession(digest(token))), undefined);
    });
  }

  it('live, membership missing: deleted, cookie cleared, unauthenticated', async () => {
    const userId = await seedUser(server.seedingDeps, { username: 'leaver' });
    const token = await signIn('leaver');
    const other = new Database(join(server.realmsPath, 'system.db'));
    other.prepare('DELETE FROM memberships WHERE user_id = ?').run(userId);
    other.close();
    const res = await getSession(token);
    assert.equal(res.status, 401);
    assert.deepEqual(res.setCookies, ['auth_session_system=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
  });

  it('no cookie, an unknown token, or another realm\'s cookie: 401 not_authenticated, nothing cleared', async () => {
    const token = await signIn('alice');
    for (const res of [
      await getSession(undefined),
      await getSession('not-a-token'),
      await getSession(undefined, { cookie: `auth_session_acme=${token}` }),
      await getSession(undefined, { cookie: `auth_session_systemx=${token}; xauth_session_system=${token}` }),
    ]) {
      assert.equal(res.status, 401);
      assert.equal(res.json.error, 'not_authenticated');
      assert.equal(res.setCookies.length, 0);
    }
  });

  it("a realm's cookie is read only for that realm", async () => {
    const systemToken = await signIn('alice');
    const acmeToken = await signIn('alice', { host: 'acme.test' });
    const acme = (cookie: string) => send(server.port, { path: '/api/v1/session', headers: { host: 'acme.test', cookie } });
    assert.equal((await acme(`auth_session_system=${systemToken}`)).status, 401);
    assert.equal((await acme(`auth_session_acme=${systemToken}`)).status, 401);
    const both = await acme(`auth_session_system=${systemToken}; auth_session_acme=${acmeToken}`);
    assert.equal(both.status, 200);
    assert.equal((both.json.realm as { slug: string }).slug, 'acme');
    assert.deepEqual(both.json.roles, []);
    assert.equal((await getSession(acmeToken)).status, 401);
    // The query slug selects the realm when the Host does not.
    const bySlug = await send(server.port, { path: '/api/v1/session?realm=acme', headers: { host: 'nowhere.example', cookie: `auth_session_acme=${acmeToken}` } });
    assert.equal(bySlug.status, 200);
    const unknown = await send(server.port, { path: '/api/v1/session?realm=nope', headers: { host: 'nowhere.example' } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error, 'unknown_realm');
  });

  it('sees changes made through another connection at the next request (data_version)', async () => {
    const token = await signIn('alice');
    const other = openSqliteStore({ databasePath: server.databasePath, realmsPath: server.realmsPath });
    try {
      await updateRealm(other, createManualClock(), 'system', { displayName: 'Renamed' });
      assert.equal(((await getSession(token)).json.realm as { display_name: string }).display_name, 'Renamed');
      await updateRealm(other, createManualClock(), 'acme', { status: 'disabled' });
      const disabled = await send(server.port, { path: '/api/v1/session', headers: { host: 'acme.test' } });
      assert.equal(disabled.status, 404);
      assert.equal(disabled.json.error, 'unknown_realm');
      await updateRealm(other, createManualClock(), 'acme', { status: 'active' });
      await updateRealm(other, createManualClock(), 'system', { displayName: 'System' });
    } finally {
      await other.close();
    }
  });

  describe('operations that end sessions', () => {
    it('a password change ends the user\'s sessions in every realm', async () => {
      const systemToken = await signIn('alice');
      const acmeToken = await signIn('alice', { host: 'acme.test' });
      await setUserPassword(server.seedingDeps, 'alice', TEST_PASSWORD);
      assert.equal((await getSession(systemToken)).status, 401);
      const acme = await send(server.port, { path: '/api/v1/session', headers: { host: 'acme.test', cookie: `auth_session_acme=${acmeToken}` } });
      assert.equal(acme.status, 401);
      assert.equal(await findSystemSession(digest(systemToken)), undefined);
    });

    it('disabling a user ends the sessions; enabling the user again does not bring them back', async () => {
      const token = await signIn('alice');
      const other = await seedUser(server.seedingDeps, { username: 'other-user' });
      const otherToken = await signIn('other-user');
      await updateUser(server.deps, 'alice', { status: 'disabled' });
      assert.equal(await findSystemSession(digest(token)), undefined);
      await updateUser(server.deps, 'alice', { status: 'active' });
      assert.equal((await getSession(token)).status, 401);
      // Only that user's sessions.
      assert.equal((await getSession(otherToken)).status, 200);
      assert.ok(other);
    });

    it('a display-name change keeps the sessions', async () => {
      const token = await signIn('alice');
      await updateUser(server.deps, 'alice', { displayName: 'Alice A.' });
      assert.equal((await getSession(token)).status, 200);
      await updateUser(server.deps, 'alice', { displayName: 'alice' });
    });

    it('disabling a realm ends its sessions; enabling it again does not bring them back; other realms keep theirs', async () => {
      const acmeToken = await signIn('alice', { host: 'acme.test' });
      const systemToken = await signIn('alice');
      await updateRealm(server.deps.store, server.deps.clock, 'acme', { status: 'disabled' });
      assert.equal(await (await server.deps.store.realm((await server.deps.store.system.findRealmBySlug('acme'))?.id ?? ''))?.countSessions(), 0);
      await updateRealm(server.deps.store, server.deps.clock, 'acme', { status: 'active' });
      const acme = await send(server.port, { path: '/api/v1/session', headers: { host: 'acme.test', cookie: `auth_session_acme=${acmeToken}` } });
      assert.equal(acme.status, 401);
      assert.equal((await getSession(systemToken)).status, 200);
    });
  });

  describe('logout', () => {
    it('deletes the session, clears the cookie and answers {ok: true}', async () => {
      const token = await signIn('alice');
      const res = await send(server.port, { method: 'POST', path: '/api/v1/logout', headers: { cookie: `auth_session_system=${token}` } });
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { ok: true });
      assert.deepEqual(res.setCookies, ['auth_session_system=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax']);
      assert.equal((await findSystemSession(digest(token))), undefined);
      assert.equal((await getSession(token)).status, 401);
    });

    it('succeeds without a session, with a JSON body naming the realm, and clears Secure behind https', async () => {
      const res = await send(server.port, {
        method: 'POST',
        path: '/api/v1/logout',
        body: { realm: 'acme' },
        headers: { host: 'nowhere.example', 'x-forwarded-proto': 'https' },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(res.setCookies, ['auth_session_acme=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax; Secure']);
    });

    it("does not touch another realm's session", async () => {
      const token = await signIn('alice');
      await send(server.port, { method: 'POST', path: '/api/v1/logout', headers: { host: 'acme.test', cookie: `auth_session_system=${token}` } });
      assert.equal((await getSession(token)).status, 200);
    });

    for (const [name, body, headers] of [
      ['malformed JSON', '{"realm":', {}],
      ['realm of the wrong type', { realm: 1 }, {}],
      ['a non-JSON body', 'realm=system', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['an oversized body', { realm: 'system', pad: 'x'.repeat(70_000) }, {}],
    ] as const) {
      it(`refuses ${name} and keeps the session`, async () => {
        const token = await signIn('alice');
        const res = await send(server.port, { method: 'POST', path: '/api/v1/logout', body, headers: { ...headers, cookie: `auth_session_system=${token}` } });
        assert.equal(res.status, name === 'an oversized body' ? 413 : 400);
        assert.equal(res.json.error, 'invalid_request');
        assert.equal(res.setCookies.length, 0);
        assert.equal((await getSession(token)).status, 200);
      });
    }
  });

  describe('GET /api/v1/realm', () => {
    it("answers the Host's realm metadata, else the slug's, without a session; 404 unknown_realm otherwise", async () => {
      const system = await send(server.port, { path: '/api/v1/realm' });
      assert.equal(system.status, 200);
      assert.deepEqual(system.json, { slug: 'system', display_name: 'System', branding: {}, allow_session_duration_choice: true });
      const acme = await send(server.port, { path: '/api/v1/realm', headers: { host: 'acme.test' } });
      assert.deepEqual(acme.json, { slug: 'acme', display_name: 'Acme', branding: {}, allow_session_duration_choice: true });
      const bySlug = await send(server.port, { path: '/api/v1/realm?realm=acme', headers: { host: 'nowhere.example' } });
      assert.equal((bySlug.json as { slug: string }).slug, 'acme');
      // A Host that matches wins over the slug, as for every other route.
      assert.equal(((await send(server.port, { path: '/api/v1/realm?realm=acme' })).json as { slug: string }).slug, 'system');
      for (const path of ['/api/v1/realm', '/api/v1/realm?realm=nope']) {
        const unknown = await send(server.port, { path, headers: { host: 'nowhere.example' } });
        assert.equal(unknown.status, 404, path);
        assert.equal(unknown.json.error, 'unknown_realm');
      }
      assert.equal((await send(server.port, { path: '/api/v1/realm?realm=a&realm=b', headers: { host: 'nowhere.example' } })).status, 400);
    });
  });

  describe('session-end notifications (for caches in the same process)', () => {
    const collect = () => {
      const seen: { reason: string; sessionId?: string; userId?: string }[] = [];
      const stop = server.deps.sessionEnds.subscribe((end) => seen.push({ reason: end.reason, sessionId: end.sessionId, userId: end.userId }));
      return { seen, stop };
    };

    it('logout, expiry deletion, an invalid membership and an administrator ending a user\'s sessions each notify', async () => {
      const { seen, stop } = collect();
      try {
        const loggedOut = await signIn('alice');
        await send(server.port, { method: 'POST', path: '/api/v1/logout', headers: { cookie: `auth_session_system=${loggedOut}` } });
        assert.deepEqual(seen.at(-1), { reason: 'logout', sessionId: digest(loggedOut), userId: undefined });

        const expiring = await signIn('alice');
        server.clock.advance(43_200_000);
        await getSession(expiring);
        assert.deepEqual(seen.at(-1), { reason: 'expired', sessionId: digest(expiring), userId: undefined });

        const suspended = await signIn('alice');
        await updateMember(server.deps, { realm: 'system', user: 'alice', status: 'suspended' });
        await getSession(suspended);
        await updateMember(server.deps, { realm: 'system', user: 'alice', status: 'active' });
        assert.deepEqual(seen.at(-1), { reason: 'invalid', sessionId: digest(suspended), userId: aliceId });

        await signIn('alice');
        const count = seen.length;
        await updateUser(server.deps, 'alice', { status: 'disabled' });
        assert.ok(seen.slice(count).some((end) => end.reason === 'user-sessions-ended' && end.userId === aliceId));
        // A plain read of a live session ends nothing.
        await updateUser(server.deps, 'alice', { status: 'active' });
        const live = await signIn('alice');
        const before = seen.length;
        assert.equal((await getSession(live)).status, 200);
        assert.equal(seen.length, before);
      } finally {
        stop();
      }
    });
  });

  it('refuses a repeated realm query parameter with 400 invalid_request', async () => {
    const res = await send(server.port, { path: '/api/v1/session?realm=system&realm=acme', headers: { host: 'nowhere.example' } });
    assert.equal(res.status, 400);
    assert.equal(res.json.error, 'invalid_request');
  });

  it('unknown paths answer 404 in the error shape', async () => {
    const res = await send(server.port, { path: '/api/v1/nope' });
    assert.equal(res.status, 404);
    assert.equal(res.json.error, 'not_found');
  });
});
