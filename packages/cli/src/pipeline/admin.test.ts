import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../testing/run-cli.js';

describe('conveyor pipeline admin', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let repo: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-admin-'));
    env = { PIPELINE_DATABASE_PATH: join(dir, 'pipeline.db'), PIPELINE_DATA_PATH: join(dir, 'data') };
    repo = join(dir, 'repo');
    spawnSync('git', ['init', '--quiet', repo]);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const admin = (...args: string[]) => runCli(['pipeline', 'admin', ...args], env);
  const adminWithStdin = (stdin: string, ...args: string[]) => runCli(['pipeline', 'admin', ...args], env, stdin);
  const json = async (...args: string[]) => {
    const result = await admin(...args, '--json');
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const listProjects = async () => (await json('project', 'list')) as unknown as { name: string }[];

  it('creates a project and prints exactly its fields', async () => {
    const project = await json('project', 'create', '--name', 'web', '--repo', repo, '--visibility', 'public', '--owner', 'user-1');
    assert.deepEqual(Object.keys(project), ['id', 'name', 'repo', 'visibility', 'enabled', 'owner_user_id', 'realm', 'trigger_secret']);
    assert.equal(project.realm, 'system');
    assert.equal(project.name, 'web');
    assert.equal(project.repo, repo);
    assert.equal(project.visibility, 'public');
    assert.equal(project.enabled, true);
    assert.equal(project.owner_user_id, 'user-1');
    assert.match(String(project.trigger_secret), /^[0-9a-f]{64}$/);
    const byId = await json('project', 'show', String(project.id));
    assert.equal(byId.name, 'web');
  });

  it('creates a project in a named realm', async () => {
    const project = await json('project', 'create', '--name', 'acme-web', '--repo', repo, '--realm', 'acme');
    assert.equal(project.realm, 'acme');
    assert.equal((await json('project', 'show', 'acme-web')).realm, 'acme');
  });

  it('refuses bad input with exit 2, a clear message, and nothing written', async () => {
    const before = await listProjects();
    const cases: [string[], RegExp][] = [
      [['project', 'create', '--name', 'Bad_Name', '--repo', repo], /must match/],
      [['project', 'create', '--name', 'web', '--repo', repo], /already exists/],
      [['project', 'create', '--name', 'ok-name', '--repo', join(dir, 'missing')], /repo|exist|git/i],
      [['project', 'create', '--name', 'ok-name', '--repo', 'ext::sh -c evil'], /./],
      [['project', 'create', '--name', 'ok-name', '--repo', repo, '--visibility', 'secret'], /visibility/],
      [['project', 'create', '--repo', repo], /--name is required/],
      [['project', 'create', '--name', 'ok-name', '--repo', repo, '--realm', 'Bad Realm'], /realm 'Bad Realm' must be a realm slug/],
      [['project', 'create', '--name', 'ok-name', '--repo', repo, '--realm=-x'], /must be a realm slug/],
      [['project', 'create', '--name', 'ok-name', '--repo', repo, '--realm', ''], /must be a realm slug/],
      [['project', 'create', '--name', 'x', '--repo', repo, '--bogus'], /bogus/],
      [['project', 'update', 'web', '--enabled', 'maybe'], /true or false/],
      [['project', 'show', 'nope'], /no project/],
      [['variable', 'set', 'web', '1BAD', 'v'], /must match/],
      [['variable', 'set', 'web', 'PIPELINE_SHA', 'v'], /set by the service/],
      [['variable', 'set', 'web', 'LEAKY', 'hunter2-hunter2', '--secret'], /visible in ps and shell history.*--value-stdin/],
      [['variable', 'set', 'web', 'BOTH', 'v', '--value-stdin'], /not both/],
      [['variable', 'set', 'web', 'NONE'], /--value-stdin/],
      [['variable', 'unset', 'web', 'NEVER_SET'], /no variable/],
      [['worker', 'create', '--name', 'bad name'], /must match/],
      [['worker', 'revoke', 'nobody'], /no worker/],
      [['frobnicate', 'now'], /unknown admin command/],
    ];
    for (const [args, message] of cases) {
      const result = await admin(...args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, message, args.join(' '));
    }
    const jsonError = await admin('project', 'show', 'nope', '--json');
    assert.equal(jsonError.code, 2);
    assert.deepEqual(Object.keys(JSON.parse(jsonError.stdout) as object), ['error', 'message']);
    assert.deepEqual(await listProjects(), before);
  });

  it('updates a project: enabled, visibility, repo, and a rotated secret', async () => {
    const before = await json('project', 'show', 'web');
    const updated = await json('project', 'update', 'web', '--enabled', 'false', '--visibility', 'private', '--rotate-secret');
    assert.equal(updated.enabled, false);
    assert.equal(updated.visibility, 'private');
    assert.notEqual(updated.trigger_secret, before.trigger_secret);
    assert.equal((await json('project', 'show', 'web')).trigger_secret, updated.trigger_secret);
  });

  it('updates the owner with --owner, and clears it with --owner ""', async () => {
    assert.equal((await json('project', 'update', 'web', '--owner', 'user-2')).owner_user_id, 'user-2');
    assert.equal((await json('project', 'show', 'web')).owner_user_id, 'user-2');
    assert.equal((await json('project', 'update', 'web', '--owner', '')).owner_user_id, null);
    assert.equal((await json('project', 'show', 'web')).owner_user_id, null);
    const tooLong = await admin('project', 'update', 'web', '--owner', 'u'.repeat(201));
    assert.equal(tooLong.code, 2);
    assert.match(tooLong.stderr, /owner must be a user id/);
    assert.equal((await json('project', 'show', 'web')).owner_user_id, null);
  });

  it('sets and unsets variables, reading values from standard input, never printing a secret value', async () => {
    const secret = await adminWithStdin('hunter2-hunter2\n', 'variable', 'set', 'web', 'API_KEY', '--secret', '--value-stdin', '--json');
    assert.equal(secret.code, 0, secret.stderr);
    assert.deepEqual(JSON.parse(secret.stdout), { project: 'web', name: 'API_KEY', secret: true });
    const piped = await adminWithStdin('line one\nline two\n', 'variable', 'set', 'web', 'NOTES', '--value-stdin');
    assert.equal(piped.code, 0, piped.stderr);
    await json('variable', 'set', 'web', 'REGION', 'eu');
    const shown = await admin('project', 'show', 'web', '--json');
    assert.ok(!shown.stdout.includes('hunter2-hunter2'));
    const variables = (JSON.parse(shown.stdout) as { variables: { name: string; secret: boolean; value: string }[] }).variables;
    assert.deepEqual(variables.find((variable) => variable.name === 'API_KEY'), { name: 'API_KEY', secret: true, value: '***' });
    assert.equal(variables.find((variable) => variable.name === 'NOTES')?.value, 'line one\nline two', 'one trailing newline is dropped');
    const database = Buffer.concat([await readFile(join(dir, 'pipeline.db')), await readFile(join(dir, 'pipeline.db-wal')).catch(() => Buffer.alloc(0))]);
    assert.ok(database.includes('hunter2-hunter2') && !database.includes('hunter2-hunter2\n'), 'the secret is stored as piped, without its newline');

    const short = await adminWithStdin('abc\n', 'variable', 'set', 'web', 'SHORT', '--secret', '--value-stdin');
    assert.equal(short.code, 2);
    assert.match(short.stderr, /at least 8/);
    await json('variable', 'unset', 'web', 'REGION');
    const after = await admin('project', 'show', 'web', '--json');
    assert.ok(!after.stdout.includes('REGION') && !after.stdout.includes('SHORT'));
  });

  it('creates a worker whose token is shown once and stored only as a hash', async () => {
    const worker = await json('worker', 'create', '--name', 'builder-1', '--owner', 'user-1');
    assert.deepEqual(Object.keys(worker), ['id', 'name', 'owner_user_id', 'token']);
    const token = String(worker.token);
    assert.ok(token.length >= 40);
    const list = await admin('worker', 'list', '--json');
    assert.ok(!list.stdout.includes(token));
    const database = await readFile(join(dir, 'pipeline.db'));
    const wal = await readFile(join(dir, 'pipeline.db-wal')).catch(() => Buffer.alloc(0));
    assert.ok(!database.includes(token) && !wal.includes(token), 'the token itself is nowhere in the database files');
    assert.equal((await admin('worker', 'create', '--name', 'builder-1')).code, 2, 'names are unique among live workers');
    const revoked = await json('worker', 'revoke', 'builder-1');
    assert.equal(typeof revoked.revoked_at, 'number');
  });

  it('prints timestamps as ISO 8601 for people and as integers under --json', async () => {
    const listed = (await json('worker', 'list')) as unknown as { created_at: number }[];
    assert.ok(listed.every((worker) => Number.isInteger(worker.created_at)));
    const human = await admin('worker', 'list');
    assert.equal(human.code, 0);
    assert.match(human.stdout, /^created_at: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/m);
    assert.match(human.stdout, /^revoked_at: \d{4}-\d\d-\d\dT/m);
    assert.match(human.stdout, /^last_seen_at: null$/m);
    assert.doesNotMatch(human.stdout, /_at: \d{10,}$/m);
  });
});

describe('conveyor pipeline admin without a database', () => {
  let dir: string;
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'conveyor-nodb-')));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  // The defaults (./data/...) from an empty working directory, as when run in the wrong place.
  const admin = (stdin: string, ...args: string[]) =>
    runCli(['pipeline', 'admin', ...args], { PIPELINE_DATABASE_PATH: '', PIPELINE_DATA_PATH: '' }, stdin, { cwd: dir });

  it('refuses every command but project create and worker create, says where it looked, and creates nothing', async () => {
    const commands = [
      ['project', 'list'],
      ['project', 'show', 'web'],
      ['project', 'update', 'web', '--enabled', 'false'],
      ['variable', 'set', 'web', 'NAME', 'value'],
      ['variable', 'unset', 'web', 'NAME'],
      ['worker', 'revoke', 'w'],
      ['worker', 'list'],
    ];
    for (const args of commands) {
      const result = await admin('', ...args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, new RegExp(`no database at ${join(dir, 'data', 'pipeline.db').replace(/[.]/g, '\\.')}; start the server once`), args.join(' '));
      assert.match(result.stderr, /project create.*PIPELINE_DATABASE_PATH/);
    }
    const json = await admin('', 'project', 'list', '--json');
    assert.equal((JSON.parse(json.stdout) as { error: string }).error, 'no_database');
    assert.deepEqual(await readdir(dir), [], 'no file or directory was made');
  });

  it('lets worker create make the database', async () => {
    const created = await admin('', 'worker', 'create', '--name', 'first', '--json');
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(await readdir(join(dir, 'data')).then((names) => names.includes('pipeline.db')), true);
    assert.equal((await admin('', 'worker', 'list')).code, 0);
  });
});
