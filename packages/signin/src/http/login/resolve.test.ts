import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addDomain } from '../../domain/domains.js';
import { addProvider, mapDomainProvider, updateProvider } from '../../domain/providers.js';
import { createRealm, updateRealm } from '../../domain/realms.js';
import { send, startTestServer, type TestServer } from '../../testing/harness.js';

describe('POST /api/v1/login/resolve', () => {
  let server: TestServer;
  const resolve = (body: unknown, headers: Record<string, string> = {}) => send(server.port, { method: 'POST', path: '/api/v1/login/resolve', body, headers });
  const system = { slug: 'system', display_name: 'System', branding: {}, allow_session_duration_choice: true };

  before(async () => {
    server = await startTestServer();
    const { deps } = server;
    await createRealm(deps.store, deps.clock, { slug: 'acme', displayName: 'Acme Inc', hosts: ['login.acme.test'], allowSessionDurationChoice: false });
    await updateRealm(deps.store, deps.clock, 'acme', { branding: { color: '#123456' } });
    await createRealm(deps.store, deps.clock, { slug: 'corp', hosts: ['corp.example'] });
    await addDomain(deps, { realm: 'corp', domain: 'corp.test', verified: true });
    await addDomain(deps, { realm: 'corp', domain: 'pending.test', verified: false });
    await addDomain(deps, { realm: 'corp', domain: 'nomap.test', verified: true });
    await addProvider(deps, { realm: 'corp', slug: 'corp-sso', displayName: 'Corp SSO', issuer: 'https://idp.corp.test', clientId: 'c', clientSecret: 's', enabled: true });
    await mapDomainProvider(deps, { realm: 'corp', domain: 'corp.test', provider: 'corp-sso' });
    await mapDomainProvider(deps, { realm: 'corp', domain: 'pending.test', provider: 'corp-sso' });
  });
  after(async () => server.close());

  it('answers the realm metadata at the top level and as `realm`, with next: password for a username', async () => {
    const res = await resolve({ identifier: 'alice' });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, { ...system, realm: system, next: 'password' });
  });

  it('step 2: an email whose domain no realm has verified is password (unverified ownership does not count)', async () => {
    assert.equal((await resolve({ identifier: 'a@example.com' })).json.next, 'password');
    assert.equal((await resolve({ identifier: 'a@pending.test' })).json.next, 'password');
  });

  it('step 3: a verified domain without a mapped provider is password', async () => {
    assert.equal((await resolve({ identifier: 'a@nomap.test' })).json.next, 'password');
  });

  it('step 4: a mapped provider applies, named by slug and display name; the identifier is trimmed and normalised', async () => {
    const res = await resolve({ identifier: '  Someone@CORP.Test.  ' });
    assert.equal(res.json.next, 'provider');
    assert.deepEqual(res.json.provider, { slug: 'corp-sso', display_name: 'Corp SSO' });
  });

  it('is independent of the realm the request selects', async () => {
    const acme = { slug: 'acme', display_name: 'Acme Inc', branding: { color: '#123456' }, allow_session_duration_choice: false };
    const byHost = await resolve({ identifier: 'x@corp.test' }, { host: 'login.acme.test' });
    assert.deepEqual(byHost.json, { ...acme, realm: acme, next: 'provider', provider: { slug: 'corp-sso', display_name: 'Corp SSO' } });
    const bySlug = await resolve({ identifier: 'x@corp.test', realm: 'acme' }, { host: 'elsewhere.example' });
    assert.equal(bySlug.json.next, 'provider');
    assert.equal((bySlug.json.realm as { slug: string }).slug, 'acme');
  });

  it('a disabled provider still applies (sign-in then refuses with provider_required)', async () => {
    await updateProvider(server.deps, { realm: 'corp', slug: 'corp-sso', enabled: false });
    assert.equal((await resolve({ identifier: 'x@corp.test' })).json.next, 'provider');
    await updateProvider(server.deps, { realm: 'corp', slug: 'corp-sso', enabled: true });
  });

  it('refuses a disabled realm as unknown_realm, and unknown hosts without a slug', async () => {
    await updateRealm(server.deps.store, server.deps.clock, 'acme', { status: 'disabled' });
    const disabled = await resolve({ identifier: 'a' }, { host: 'login.acme.test' });
    await updateRealm(server.deps.store, server.deps.clock, 'acme', { status: 'active' });
    assert.equal(disabled.status, 404);
    assert.deepEqual(disabled.json, { error: 'unknown_realm', message: 'no realm matches the host or the realm slug' });
    assert.equal((await resolve({ identifier: 'a' }, { host: 'evil.example' })).status, 404);
  });

  for (const [name, body] of [
    ['malformed JSON', '{'],
    ['identifier missing', {}],
    ['identifier a number', { identifier: 1 }],
    ['identifier an array', { identifier: ['a@corp.test'] }],
    ['realm a boolean', { identifier: 'a', realm: true }],
    ['a body over 64 KiB', { identifier: 'a'.repeat(70_000) }],
  ] as const) {
    it(`refuses ${name} with invalid_request`, async () => {
      const res = await resolve(body);
      assert.equal(res.status, name === 'a body over 64 KiB' ? 413 : 400);
      assert.equal(res.json.error, 'invalid_request');
    });
  }
});
