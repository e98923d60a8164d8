import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addDomain } from '../../domain/domains.js';
import { addMember } from '../../domain/members.js';
import { addProvider, mapDomainProvider } from '../../domain/providers.js';
import { createRealm } from '../../domain/realms.js';
import { updateUser } from '../../domain/users.js';
import { cookieValue, seedUser, send, startTestServer, TEST_PASSWORD, type TestServer } from '../../testing/harness.js';

describe('POST /api/v1/login/password', () => {
  let server: TestServer;
  let dummyChecks = 0;
  const ids: Record<string, string> = {};

  const signIn = (body: unknown, headers: Record<string, string> = {}) =>
    send(server.port, { method: 'POST', path: '/api/v1/login/password', body, headers });
  const systemSessions = async () => (await (await server.deps.store.realm('system'))?.countSessions()) ?? -1;
  const findSystemSession = async (id: string) => (await server.deps.store.realm('system'))?.findSession(id);

  before(async () => {
    server = await startTestServer();
    const { deps } = server;
    // A spy that still runs the real dummy check: rule 3 must pay for it.
    const realDummy = deps.passwords.verifyDummy;
    deps.passwords.verifyDummy = async (password) => {
      dummyChecks += 1;
      await realDummy(password);
    };
    await createRealm(deps.store, deps.clock, { slug: 'acme', displayName: 'Acme', hosts: ['acme.test'], allowSessionDurationChoice: false });
    await createRealm(deps.store, deps.clock, { slug: 'corp', hosts: ['corp.example'] });
    await createRealm(deps.store, deps.clock, { slug: 'legacy' });
    await addDomain(deps, { realm: 'corp', domain: 'corp.test', verified: true });
    await addProvider(deps, { realm: 'corp', slug: 'corp-sso', displayName: 'Corp SSO', issuer: 'https://idp.corp.test', clientId: 'c', clientSecret: 's', enabled: true });
    await mapDomainProvider(deps, { realm: 'corp', domain: 'corp.test', provider: 'corp-sso' });
    await addDomain(deps, { realm: 'legacy', domain: 'legacy.test', verified: true });
    await addProvider(deps, { realm: 'legacy', slug: 'old-sso', displayName: 'Old SSO', issuer: 'https://idp.legacy.test', clientId: 'c', clientSecret: 's', enabled: false });
    await mapDomainProvider(deps, { realm: 'legacy', domain: 'legacy.test', provider: 'old-sso' });

    ids.alice = await seedUser(server.seedingDeps, { username: 'Alice', email: 'alice@example.com' });
    await addMember(deps, { realm: 'acme', user: ids.alice });
    ids.bob = await seedUser(server.seedingDeps, { username: 'bob' });
    await updateUser(deps, 'bob', { status: 'disabled' });
    ids.carol = await seedUser(server.seedingDeps, { username: 'carol', password: null });
    ids.dave = await seedUser(server.seedingDeps, { username: 'dave', membershipStatus: null });
    ids.erin = await seedUser(server.seedingDeps, { username: 'erin', membershipStatus: 'suspended' });
    ids.ivan = await seedUser(server.seedingDeps, { username: 'ivan', membershipStatus: 'invited' });
    ids.hank = await seedUser(server.seedingDeps, { username: 'hank', email: 'hank@example.org', emailVerified: false });
    ids.frank = await seedUser(server.seedingDeps, { username: 'frank', email: 'frank@corp.test' });
    ids.gina = await seedUser(server.seedingDeps, { username: 'gina', email: 'gina@legacy.test' });
  });

  after(async () => server.close());

  it('signs in by username and answers realm, user and expires_at with the session cookie', async () => {
    const now = server.clock.now();
    const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { 'user-agent': 'test-agent/1' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      realm: { slug: 'system', display_name: 'System', branding: {}, allow_session_duration_choice: true },
      user: { id: ids.alice, username: 'Alice', display_name: 'Alice' },
      expires_at: now + 43_200_000,
    });
    assert.equal(res.setCookies.length, 1);
    assert.match(res.setCookies[0] ?? '', /^auth_session_system=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/);
  });

  it('stores only the SHA-256 of the token, with user agent and socket IP, and updates last_login_at', async () => {
    server.clock.advance(1000);
    const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { 'user-agent': 'agent-x' });
    const token = cookieValue(res.setCookies, 'auth_session_system') ?? '';
    assert.equal(await findSystemSession(token), undefined);
    const session = await findSystemSession(createHash('sha256').update(token).digest('hex'));
    assert.equal(session?.user_agent, 'agent-x');
    assert.equal(session?.ip, '127.0.0.1');
    assert.equal(session?.ttl, 43_200);
    assert.equal(session?.last_seen_at, server.clock.now());
    assert.equal((await server.deps.store.system.findUserById(ids.alice ?? ''))?.last_login_at, server.clock.now());
    // The raw bytes of the realm's file (and its WAL) hold the digest, never the token.
    const raw = ['', '-wal']
      .map((suffix) => join(server.realmsPath, `system.db${suffix}`))
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('');
    assert.ok(raw.includes(createHash('sha256').update(token).digest('hex')));
    assert.ok(!raw.includes(token));
  });

  it('caps the stored user agent at 512 characters', async () => {
    const long = `${'a'.repeat(511)}Z${'b'.repeat(2000)}`;
    const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { 'user-agent': long });
    assert.equal(res.status, 200);
    const token = cookieValue(res.setCookies, 'auth_session_system') ?? '';
    const session = await findSystemSession(createHash('sha256').update(token).digest('hex'));
    assert.equal(session?.user_agent, `${'a'.repeat(511)}Z`);
  });

  it('accepts application/json with a charset parameter', async () => {
    const res = await signIn(JSON.stringify({ identifier: 'alice', password: TEST_PASSWORD }), { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.status, 200);
  });

  it('rule 7: takes the client IP from the first X-Forwarded-For value', async () => {
    const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' });
    const token = cookieValue(res.setCookies, 'auth_session_system') ?? '';
    const session = await findSystemSession(createHash('sha256').update(token).digest('hex'));
    assert.equal(session?.ip, '203.0.113.7');
    assert.equal(session?.user_agent, null);
  });

  it('deletes all expired sessions of the realm before creating one', async () => {
    assert.ok((await systemSessions()) >= 3);
    server.clock.advance(43_200_000 + 1000);
    const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD });
    assert.equal(res.status, 200);
    assert.equal(await systemSessions(), 1);
  });

  it('normalises the username (trim, lower-case) and finds users by verified email only', async () => {
    assert.equal((await signIn({ identifier: '  ALICE ', password: TEST_PASSWORD })).status, 200);
    assert.equal((await signIn({ identifier: ' Alice@Example.COM ', password: TEST_PASSWORD })).status, 200);
    const unverified = await signIn({ identifier: 'hank@example.org', password: TEST_PASSWORD });
    assert.equal(unverified.status, 401);
    assert.equal(unverified.json.error, 'invalid_credentials');
  });

  it('rule 6: long_session gives 7 days where the realm allows the choice, else 12 hours', async () => {
    const long = await signIn({ identifier: 'alice', password: TEST_PASSWORD, long_session: true });
    assert.equal(long.json.expires_at, server.clock.now() + 604_800_000);
    assert.match(long.setCookies[0] ?? '', /; Max-Age=604800;/);
    const refused = await signIn({ identifier: 'alice', password: TEST_PASSWORD, long_session: true }, { host: 'acme.test' });
    assert.equal(refused.status, 200);
    assert.equal(refused.json.expires_at, server.clock.now() + 43_200_000);
    assert.match(refused.setCookies[0] ?? '', /^auth_session_acme=[^;]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax$/);
    const short = await signIn({ identifier: 'alice', password: TEST_PASSWORD, long_session: false });
    assert.equal(short.json.expires_at, server.clock.now() + 43_200_000);
  });

  it('marks the cookie Secure when the first X-Forwarded-Proto is https, and only then', async () => {
    const secure = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { 'x-forwarded-proto': 'https, http' });
    assert.match(secure.setCookies[0] ?? '', /^auth_session_system=[A-Za-z0-9_-]{43}; Max-Age=43200; Path=\/; HttpOnly; SameSite=Lax; Secure$/);
    const notFirst = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { 'x-forwarded-proto': 'http, https' });
    assert.doesNotMatch(notFirst.setCookies[0] ?? '', /Secure/);
  });

  describe('rule 3: one answer for every ineligible account, after a dummy password check', () => {
    for (const [name, identifier] of [
      ['unknown user', 'nobody'],
      ['unknown email', 'nobody@example.com'],
      ['disabled user', 'bob'],
      ['user without password', 'carol'],
      ['no membership in the realm', 'dave'],
      ['suspended membership', 'erin'],
      ['invited membership', 'ivan'],
    ] as const) {
      it(`${name}: 401 invalid_credentials, dummy check performed, no session`, async () => {
        const before = await systemSessions();
        const checks = dummyChecks;
        const res = await signIn({ identifier, password: TEST_PASSWORD });
        assert.equal(res.status, 401);
        assert.deepEqual(res.json, { error: 'invalid_credentials', message: 'the identifier or the password is not correct' });
        assert.equal(dummyChecks, checks + 1);
        assert.equal(res.setCookies.length, 0);
        assert.equal(await systemSessions(), before);
      });
    }

    it('membership is per realm: dave signs in to acme once a member there', async () => {
      await addMember(server.deps, { realm: 'acme', user: 'dave' });
      assert.equal((await signIn({ identifier: 'dave', password: TEST_PASSWORD }, { host: 'acme.test' })).status, 200);
      assert.equal((await signIn({ identifier: 'dave', password: TEST_PASSWORD })).status, 401);
    });
  });

  it('rule 4: a wrong password is 401 invalid_credentials without the dummy check', async () => {
    const checks = dummyChecks;
    const res = await signIn({ identifier: 'alice', password: 'wrong' });
    assert.equal(res.status, 401);
    assert.equal(res.json.error, 'invalid_credentials');
    assert.equal(dummyChecks, checks);
  });

  describe('rules 2 and 5: identity providers', () => {
    it('rule 2: an email whose domain resolves to a provider is 403 provider_required, before any password check', async () => {
      const checks = dummyChecks;
      for (const identifier of ['frank@corp.test', 'unknown@CORP.test', 'gina@legacy.test']) {
        const res = await signIn({ identifier, password: 'wrong' });
        assert.equal(res.status, 403, identifier);
        assert.equal(res.json.error, 'provider_required');
      }
      assert.equal(dummyChecks, checks);
    });

    it('rule 5: username sign-in of a home-realm user with an enabled provider is 403 provider_required', async () => {
      assert.equal((await server.deps.store.system.findUserById(ids.frank ?? ''))?.home_realm_id, (await server.deps.store.system.findRealmBySlug('corp'))?.id);
      const res = await signIn({ identifier: 'frank', password: TEST_PASSWORD });
      assert.equal(res.status, 403);
      assert.equal(res.json.error, 'provider_required');
      assert.equal(res.setCookies.length, 0);
    });

    it('rule 5: with the provider disabled it is 409 provider_disabled', async () => {
      const res = await signIn({ identifier: 'gina', password: TEST_PASSWORD });
      assert.equal(res.status, 409);
      assert.equal(res.json.error, 'provider_disabled');
    });

    it('rule 4 comes before rule 5: a wrong password is 401 even for provider accounts', async () => {
      assert.equal((await signIn({ identifier: 'frank', password: 'wrong' })).json.error, 'invalid_credentials');
      assert.equal((await signIn({ identifier: 'gina', password: 'wrong' })).json.error, 'invalid_credentials');
    });
  });

  describe('rule 1 and hostile input: 400 invalid_request, nothing stored', () => {
    const cases: [string, unknown, Record<string, string>?][] = [
      ['malformed JSON', '{"identifier": "alice", "password": '],
      ['an array body', [{ identifier: 'alice', password: TEST_PASSWORD }]],
      ['a JSON null body', 'null'],
      ['a JSON string body', '"alice"'],
      ['an empty body', ''],
      ['a text/plain body', JSON.stringify({ identifier: 'alice', password: TEST_PASSWORD }), { 'content-type': 'text/plain' }],
      ['a form body', 'identifier=alice&password=x', { 'content-type': 'application/x-www-form-urlencoded' }],
      ['identifier missing', { password: TEST_PASSWORD }],
      ['identifier a number', { identifier: 42, password: TEST_PASSWORD }],
      ['password missing', { identifier: 'alice' }],
      ['password null', { identifier: 'alice', password: null }],
      ['password an object', { identifier: 'alice', password: { $ne: '' } }],
      ['realm a number', { identifier: 'alice', password: TEST_PASSWORD, realm: 5 }],
      ['long_session a string', { identifier: 'alice', password: TEST_PASSWORD, long_session: 'true' }],
      ['a 1025-character password', { identifier: 'alice', password: 'a'.repeat(1025) }],
      ['rule 1 before rule 2', { identifier: 'frank@corp.test', password: 7 }],
      ['rule 1 before the realm', { identifier: 'alice', password: 'a'.repeat(1025), realm: 'nope' }],
    ];
    for (const [name, body, headers] of cases) {
      it(name, async () => {
        const before = await systemSessions();
        const checks = dummyChecks;
        const res = await signIn(body, headers);
        assert.equal(res.status, 400, res.text);
        assert.equal(res.json.error, 'invalid_request');
        assert.equal(typeof res.json.message, 'string');
        assert.equal(res.setCookies.length, 0);
        assert.equal(await systemSessions(), before);
        assert.equal(dummyChecks, checks);
      });
    }

    it('counts characters, not UTF-16 units: 1024 emoji are allowed (and simply wrong)', async () => {
      const res = await signIn({ identifier: 'alice', password: '😀'.repeat(1024) });
      assert.equal(res.status, 401);
    });

    it('a body over 64 KiB is 413 with the error body', async () => {
      const before = await systemSessions();
      const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD, padding: 'x'.repeat(70_000) });
      assert.equal(res.status, 413);
      assert.equal(res.json.error, 'invalid_request');
      assert.equal(await systemSessions(), before);
    });
  });

  describe('realm choice', () => {
    it('matches the Host without port, case or trailing dot, and the Host wins over the slug', async () => {
      for (const host of ['ACME.test.', 'acme.test:8443', 'Acme.Test.:80']) {
        const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD, realm: 'system' }, { host });
        assert.equal(res.status, 200, host);
        assert.deepEqual((res.json.realm as { slug: string }).slug, 'acme');
      }
      const v6 = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { host: '[::1]:4000' });
      assert.equal((v6.json.realm as { slug: string }).slug, 'system');
    });

    it('uses the slug when the Host matches no realm', async () => {
      const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD, realm: 'acme' }, { host: 'unknown.example' });
      assert.equal((res.json.realm as { slug: string }).slug, 'acme');
    });

    it('is 404 unknown_realm for odd or unknown hosts without a slug, and for unknown slugs', async () => {
      const before = await systemSessions();
      for (const host of ['unknown.example', 'localhost.evil', '127.0.0.1.nip.io', '[::2]', 'a'.repeat(300)]) {
        const res = await signIn({ identifier: 'alice', password: TEST_PASSWORD }, { host });
        assert.equal(res.status, 404, host);
        assert.equal(res.json.error, 'unknown_realm');
      }
      const slug = await signIn({ identifier: 'alice', password: TEST_PASSWORD, realm: '../system' }, { host: 'unknown.example' });
      assert.equal(slug.json.error, 'unknown_realm');
      assert.equal(await systemSessions(), before);
    });
  });
});
