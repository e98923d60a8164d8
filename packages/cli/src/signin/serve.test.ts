import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { admin, runConveyor, startServe, tempAuthEnv } from './cli-harness.js';

describe('conveyor signin serve (real process)', () => {
  it('serves sign-in and sessions, sees admin CLI changes at the next request, and exits cleanly on SIGTERM', async () => {
    const env = tempAuthEnv();
    assert.equal((await admin(env, ['realm', 'create', '--slug', 'acme', '--host', 'acme.test'])).code, 0);
    assert.equal((await admin(env, ['user', 'create', '--username', 'Ann', '--password-stdin'], 's3cret pass\r\n')).code, 0);
    assert.equal((await admin(env, ['member', 'add', '--realm', 'system', '--user', 'ann', '--role', 'realm-admin'])).code, 0);

    const server = await startServe(env);
    try {
      // A host is registered (acme.test), so the local hosts were not given to the system realm: the slug selects it.
      const byHost = await fetch(`${server.url}/api/v1/session`);
      assert.equal(byHost.status, 404);
      const signIn = await fetch(`${server.url}/api/v1/login/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'ANN', password: 's3cret pass', realm: 'system' }),
      });
      assert.equal(signIn.status, 200);
      const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      assert.match(cookie, /^auth_session_system=/);
      const session = await fetch(`${server.url}/api/v1/session?realm=system`, { headers: { cookie } });
      assert.equal(session.status, 200);
      assert.deepEqual(((await session.json()) as { roles: string[] }).roles, ['realm-admin']);

      const sessionStatus = async (sessionCookie: string) => (await fetch(`${server.url}/api/v1/session?realm=system`, { headers: { cookie: sessionCookie } })).status;
      // Disabling the user ends the sessions at once (the CLI deletes them), and enabling the user
      // again does not bring them back.
      assert.equal((await admin(env, ['user', 'update', 'ann', '--status', 'disabled'])).code, 0);
      assert.equal(await sessionStatus(cookie), 401);
      assert.equal((await admin(env, ['user', 'update', 'ann', '--status', 'active'])).code, 0);
      assert.equal(await sessionStatus(cookie), 401);

      // A password change ends the sessions too.
      const again = await fetch(`${server.url}/api/v1/login/password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'ann', password: 's3cret pass', realm: 'system' }),
      });
      const secondCookie = (again.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      assert.equal(await sessionStatus(secondCookie), 200);
      assert.equal((await admin(env, ['user', 'set-password', 'ann', '--password-stdin'], 'new s3cret pass\n')).code, 0);
      assert.equal(await sessionStatus(secondCookie), 401);
      assert.doesNotMatch(server.output(), /s3cret|auth_session_system=[A-Za-z0-9_-]{43}/);
    } finally {
      server.child.kill('SIGTERM');
    }
    const [code] = (await once(server.child, 'exit')) as [number | null];
    assert.equal(code, 0);
  });

  it('registers the local hosts for the system realm when no host exists', async () => {
    const server = await startServe(tempAuthEnv());
    try {
      const res = await fetch(`${server.url}/api/v1/login/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'x' }),
      });
      assert.deepEqual(await res.json(), {
        slug: 'system',
        display_name: 'System',
        branding: {},
        allow_session_duration_choice: true,
        realm: { slug: 'system', display_name: 'System', branding: {}, allow_session_duration_choice: true },
        next: 'password',
      });
    } finally {
      server.child.kill('SIGTERM');
    }
    assert.deepEqual(await once(server.child, 'exit'), [0, null]);
  });

  it('refuses an invalid AUTH_PORT with a message naming it and exit 2', async () => {
    const result = await runConveyor(['signin', 'serve'], { ...tempAuthEnv(), AUTH_PORT: 'eighty' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /AUTH_PORT/);
  });
});
