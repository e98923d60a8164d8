import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../testing/run-cli.js';
import { admin, runConveyor, tempAuthEnv } from './cli-harness.js';

/** A digest of every file under the data directory: equal before and after means nothing was written. */
function snapshot(env: NodeJS.ProcessEnv): string {
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else hash.update(path).update(readFileSync(path));
    }
  };
  walk(dirname(env.AUTH_DATABASE_PATH ?? ''));
  return hash.digest('hex');
}

describe('conveyor signin admin (real processes)', () => {
  const env = tempAuthEnv();

  before(async () => {
    assert.equal((await admin(env, ['realm', 'create', '--slug', 'north', '--display-name', 'North', '--host', 'North.Test.', '--no-session-duration-choice'])).code, 0);
    assert.equal((await admin(env, ['realm', 'create', '--slug', 'south'])).code, 0);
    assert.equal((await admin(env, ['domain', 'add', '--realm', 'north', '--domain', 'north.test', '--verified'])).code, 0);
    assert.equal((await admin(env, ['domain', 'add', '--realm', 'south', '--domain', 'south.test', '--verified'])).code, 0);
  });

  it('realm create prints {id, slug}; realm list shows settings, hosts and domains', async () => {
    const created = await admin(env, ['realm', 'create', '--slug', 'east']);
    assert.equal(created.code, 0);
    assert.deepEqual(Object.keys(created.json), ['id', 'slug']);
    assert.equal(created.json.slug, 'east');
    const listed = await runConveyor(['signin', 'admin', 'realm', 'list', '--json'], env);
    const realms = JSON.parse(listed.stdout) as { slug: string; hosts: string[]; allow_session_duration_choice: boolean; domains: string[] }[];
    const north = realms.find((r) => r.slug === 'north');
    assert.deepEqual(north?.hosts, ['north.test']);
    assert.deepEqual(north?.domains, ['north.test']);
    assert.equal(north?.allow_session_duration_choice, false);
    assert.deepEqual(realms.map((r) => r.slug), ['east', 'north', 'south', 'system']);
  });

  it('realm update and add-host', async () => {
    const updated = await admin(env, ['realm', 'update', 'east', '--display-name', 'East', '--status', 'disabled', '--session-duration-choice', 'false', '--branding', '{"color":"red"}']);
    assert.equal(updated.code, 0);
    assert.equal(updated.json.display_name, 'East');
    assert.equal(updated.json.status, 'disabled');
    assert.equal(updated.json.allow_session_duration_choice, false);
    assert.deepEqual(updated.json.branding, { color: 'red' });
    const host = await admin(env, ['realm', 'add-host', 'east', '--host', 'EAST.test']);
    assert.deepEqual(host.json, { slug: 'east', host: 'east.test' });
  });

  it('domain add prints {domain, verified, verification_token}; domain verify marks it verified', async () => {
    const added = await admin(env, ['domain', 'add', '--realm', 'east', '--domain', ' East.Example. ']);
    assert.equal(added.json.domain, 'east.example');
    assert.equal(added.json.verified, false);
    assert.match(String(added.json.verification_token), /^[A-Za-z0-9_-]{32}$/);
    const verified = await admin(env, ['domain', 'verify', '--domain', 'east.example']);
    assert.equal(verified.json.verified, true);
  });

  it('user create/update/set-password, email add/verify, with the home realm rule', async () => {
    const created = await admin(env, ['user', 'create', '--username', 'Nora', '--email', 'nora@north.test', '--verified', '--primary', '--password-stdin'], 'pw one\n');
    assert.equal(created.code, 0);
    assert.deepEqual(Object.keys(created.json), ['id', 'username']);
    const updated = await admin(env, ['user', 'update', 'NORA', '--display-name', 'Nora N', '--status', 'disabled']);
    assert.equal(updated.json.display_name, 'Nora N');
    assert.equal(updated.json.status, 'disabled');
    assert.equal(typeof updated.json.home_realm_id, 'string');
    assert.equal((await admin(env, ['user', 'set-password', String(created.json.id), '--password-stdin'], 'pw two')).code, 0);
    const email = await admin(env, ['email', 'add', '--user', 'nora', '--email', 'n2@example.com']);
    assert.equal(email.json.verified, false);
    assert.equal((await admin(env, ['email', 'verify', '--email', 'N2@example.com'])).json.verified, true);
  });

  it('a verified email of another realm is refused with home_realm_conflict, exit 2, nothing written', async () => {
    const before = snapshot(env);
    const refused = await admin(env, ['email', 'add', '--user', 'nora', '--email', 'nora@south.test', '--verified']);
    assert.equal(refused.code, 2);
    assert.equal(refused.json.error, 'home_realm_conflict');
    assert.match(String(refused.json.message), /home_realm_conflict/);
    assert.match(refused.stderr, /home_realm_conflict/);
    assert.equal(snapshot(env), before);
  });

  it('member add/update, provider add/update/map-domain, client add', async () => {
    const member = await admin(env, ['member', 'add', '--realm', 'north', '--user', 'nora', '--status', 'invited', '--role', 'realm-admin']);
    assert.deepEqual({ ...member.json, user_id: 'x' }, { realm: 'north', user_id: 'x', status: 'invited', roles: ['realm-admin'] });
    const changed = await admin(env, ['member', 'update', '--realm', 'north', '--user', 'nora', '--status', 'active', '--role', 'system-admin', '--role', 'realm-admin']);
    assert.deepEqual(changed.json.roles, ['realm-admin', 'system-admin']);
    assert.equal(changed.json.status, 'active');
    const provider = await admin(env, ['provider', 'add', '--realm', 'north', '--slug', 'north-sso', '--display-name', 'North SSO', '--issuer', 'https://idp.north.test', '--client-id', 'abc', '--client-secret-stdin', '--disabled'], 'very-secret\n');
    assert.equal(provider.code, 0, provider.stderr);
    assert.equal(provider.json.enabled, false);
    assert.doesNotMatch(JSON.stringify(provider.json), /very-secret/);
    assert.equal((await admin(env, ['provider', 'update', '--realm', 'north', '--slug', 'north-sso', '--enabled', 'true'])).json.enabled, true);
    const mapped = await admin(env, ['provider', 'map-domain', '--realm', 'north', '--domain', 'NORTH.test', '--provider', 'north-sso']);
    assert.deepEqual(mapped.json, { domain: 'north.test', provider: 'north-sso' });
    const client = await admin(env, ['client', 'add', '--realm', 'north', '--client-id', 'ci-web', '--name', 'CI web', '--access-mode', 'internal', '--redirect-uri', 'https://ci.north.test/cb', '--require-role', 'realm-admin']);
    assert.deepEqual({ ...client.json, id: 'x' }, { id: 'x', client_id: 'ci-web', name: 'CI web', access_mode: 'internal', redirect_uris: ['https://ci.north.test/cb'], required_roles: ['realm-admin'] });
  });

  describe('bad input: exit 2, a clear message, nothing written', () => {
    const cases: [string, string[], string?, string?][] = [
      ['unknown option', ['realm', 'create', '--slug', 'x', '--bogus']],
      ['missing required option', ['realm', 'create']],
      ['bad slug', ['realm', 'create', '--slug', 'Not A Slug'], undefined, 'invalid_request'],
      ['taken slug', ['realm', 'create', '--slug', 'north'], undefined, 'duplicate'],
      ['taken host', ['realm', 'create', '--slug', 'west', '--host', 'north.test'], undefined, 'duplicate'],
      ['host with a port', ['realm', 'add-host', 'south', '--host', 'south.test:8080'], undefined, 'invalid_request'],
      ['unknown realm', ['realm', 'update', 'nowhere', '--status', 'active'], undefined, 'unknown_realm'],
      ['unknown realm for a member', ['member', 'add', '--realm', 'nowhere', '--user', 'nora'], undefined, 'unknown_realm'],
      ['bad status word', ['realm', 'update', 'south', '--status', 'paused']],
      ['bad boolean word', ['realm', 'update', 'south', '--session-duration-choice', 'yes']],
      ['branding not an object', ['realm', 'update', 'south', '--branding', '[1]']],
      ['domain with @', ['domain', 'add', '--realm', 'south', '--domain', 'a@b.test'], undefined, 'invalid_request'],
      ['domain owned by another realm', ['domain', 'add', '--realm', 'south', '--domain', 'north.test'], undefined, 'duplicate'],
      ['username taken after normalisation', ['user', 'create', '--username', ' NORA ']],
      ['username with @', ['user', 'create', '--username', 'a@b']],
      ['1025-character password', ['user', 'create', '--username', 'longpw', '--password-stdin'], 'p'.repeat(1025)],
      ['empty password', ['user', 'set-password', 'nora', '--password-stdin'], '\n'],
      ['--verified without --email', ['user', 'create', '--username', 'zz', '--verified']],
      ['email taken', ['email', 'add', '--user', 'nora', '--email', ' NORA@north.test']],
      ['unknown user', ['member', 'add', '--realm', 'south', '--user', 'ghost'], undefined, 'not_found'],
      ['unknown role', ['member', 'add', '--realm', 'south', '--user', 'nora', '--role', 'wizard'], undefined, 'invalid_request'],
      ['membership exists', ['member', 'add', '--realm', 'north', '--user', 'nora'], undefined, 'duplicate'],
      ['provider without secret flag', ['provider', 'add', '--realm', 'south', '--slug', 'p', '--display-name', 'P', '--issuer', 'https://x.test', '--client-id', 'c']],
      ['provider with bad issuer', ['provider', 'add', '--realm', 'south', '--slug', 'p', '--display-name', 'P', '--issuer', 'ftp://x', '--client-id', 'c', '--client-secret-stdin'], 's'],
      ['map a domain the realm does not own', ['provider', 'map-domain', '--realm', 'south', '--domain', 'north.test', '--provider', 'north-sso']],
      ['client with unknown role', ['client', 'add', '--realm', 'north', '--client-id', 'c2', '--name', 'C', '--require-role', 'nope']],
      ['client with a bad redirect URI', ['client', 'add', '--realm', 'north', '--client-id', 'c3', '--name', 'C', '--redirect-uri', 'not a url']],
      ['client id taken (admin-ui is built in)', ['client', 'add', '--realm', 'north', '--client-id', 'admin-ui', '--name', 'Dup'], undefined, 'duplicate'],
    ];
    // The cases run a few at a time (each is a process start); one snapshot around all of them shows
    // that none wrote anything.
    it('every case is refused with exit 2, its code and a message, and the files are unchanged', async () => {
      const before = snapshot(env);
      const failures: string[] = [];
      const queue = [...cases];
      const worker = async () => {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const [name, args, stdin, code] = next;
          const result = await admin(env, args, stdin ?? '');
          const ok =
            result.code === 2 &&
            typeof result.json.error === 'string' &&
            (code === undefined || result.json.error === code) &&
            String(result.json.message).length > 5 &&
            (code === undefined || String(result.json.message).startsWith(`${code}: `) || String(result.json.message).includes(code)) &&
            /^error: /.test(result.stderr);
          if (!ok) failures.push(`${name}: ${JSON.stringify(result)}`);
        }
      };
      await Promise.all([worker(), worker(), worker()]);
      assert.deepEqual(failures, []);
      assert.equal(snapshot(env), before);
    });

    it('unknown command and bad AUTH_PORT are refused with exit 2', async () => {
      assert.equal((await runConveyor(['signin', 'admin', 'realm', 'explode'], env)).code, 2);
      assert.equal((await runConveyor(['signin', 'admin', 'realm', 'list'], { ...env, AUTH_PORT: '99999' })).code, 2);
    });
  });
});

describe('conveyor signin admin without a database', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'signin-nodb-')));
  after(() => rmSync(dir, { recursive: true, force: true }));
  // No AUTH_* at all: the defaults (./data/...) from an empty working directory, as when run in the wrong place.
  const run = (args: string[], stdin = '') => runCli(['signin', 'admin', ...args], {}, stdin, { inheritEnv: false, cwd: dir });

  it('refuses every command but realm create and user create, says where it looked, and creates nothing', async () => {
    const commands = [
      ['realm', 'list'],
      ['realm', 'update', 'system', '--status', 'active'],
      ['realm', 'add-host', 'system', '--host', 'a.test'],
      ['domain', 'add', '--realm', 'system', '--domain', 'a.test'],
      ['user', 'update', 'ann', '--status', 'active'],
      ['user', 'set-password', 'ann', '--password-stdin'],
      ['member', 'add', '--realm', 'system', '--user', 'ann'],
      ['client', 'add', '--realm', 'system', '--client-id', 'c', '--name', 'C'],
    ];
    for (const args of commands) {
      const result = await run(args, 'a password\n');
      assert.equal(result.code, 2, args.join(' '));
      assert.ok(result.stderr.includes(`no database at ${join(dir, 'data', 'signin.db')}; start the server once`), `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /realm create.*user create.*AUTH_DATABASE_PATH/);
    }
    const json = await run(['realm', 'list', '--json']);
    assert.equal((JSON.parse(json.stdout) as { error: string }).error, 'no_database');
    assert.deepEqual(readdirSync(dir), [], 'no file or directory was made');
  });

  it('lets user create make the database for the first administrator', async () => {
    const created = await run(['user', 'create', '--username', 'admin', '--password-stdin'], 'first password\n');
    assert.equal(created.code, 0, created.stderr);
    assert.ok(readdirSync(join(dir, 'data')).includes('signin.db'));
    assert.equal((await run(['member', 'add', '--realm', 'system', '--user', 'admin', '--role', 'system-admin'])).code, 0);
  });
});
