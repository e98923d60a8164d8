import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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
  const json = async (...args: string[]) => {
    const result = await admin(...args, '--json');
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Record<string, unknown>;
  };
  const listProjects = async () => (await json('project', 'list')) as unknown as { name: string }[];

  it('creates a project and prints exactly its fields', async () => {
    const project = await json('project', 'create', '--name', 'web', '--repo', repo, '--visibility', 'public', '--owner', 'user-1');
    assert.deepEqual(Object.keys(project), ['id', 'name', 'repo', 'visibility', 'enabled', 'owner_user_id', 'trigger_secret']);
    assert.equal(project.name, 'web');
    assert.equal(project.repo, repo);
    assert.equal(project.visibility, 'public');
    assert.equal(project.enabled, true);
    assert.equal(project.owner_user_id, 'user-1');
    assert.match(String(project.trigger_secret), /^[0-9a-f]{64}$/);
    const byId = await json('project', 'show', String(project.id));
    assert.equal(byId.name, 'web');
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
      [['project', 'create', '--name', 'x', '--repo', repo, '--bogus'], /bogus/],
      [['project', 'update', 'web', '--enabled', 'maybe'], /true or false/],
      [['project', 'show', 'nope'], /no project/],
      [['variable', 'set', 'web', '1BAD', 'v'], /must match/],
      [['variable', 'set', 'web', 'PIPELINE_SHA', 'v'], /set by the service/],
      [['variable', 'set', 'web', 'SHORT', 'abc', '--secret'], /at least 8/],
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

  it('sets and unsets variables, never printing a secret value', async () => {
    await json('variable', 'set', 'web', 'API_KEY', 'hunter2-hunter2', '--secret');
    await json('variable', 'set', 'web', 'REGION', 'eu');
    const shown = await admin('project', 'show', 'web', '--json');
    assert.ok(!shown.stdout.includes('hunter2-hunter2'));
    assert.match(shown.stdout, /"REGION"/);
    await json('variable', 'unset', 'web', 'REGION');
    assert.ok(!(await admin('project', 'show', 'web', '--json')).stdout.includes('REGION'));
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
});
