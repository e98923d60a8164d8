import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli } from '../testing/run-cli.js';

const VALID = `image: node:22
tasks:
  build:
    script: [npm ci]
  test:
    matrix: {node: ["20", "22"]}
    image: node:\${node}
    needs: [build]
    script: npm test
`;

const BROKEN = [
  'tasks:', //                 1
  '  build:', //               2
  '    imgae: node:22', //     3
  '    scrpt: [npm ci]', //    4
  '  test:', //                5
  '    image: node:22', //     6
  '    script: npm test', //   7
  '    timeout: soon', //      8
  '    needs: [build, pkg]', // 9
  '',
].join('\n');

describe('conveyor pipeline lint', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-lint-'));
    await writeFile(join(dir, '.pipeline.yml'), VALID);
    await writeFile(join(dir, 'broken.yml'), BROKEN);
    await writeFile(join(dir, 'syntax.yml'), 'tasks:\n  build: [\n');
  });
  after(() => rm(dir, { recursive: true, force: true }));

  const lint = (...args: string[]) => runCli(['pipeline', 'lint', ...args], {}, '', { cwd: dir });

  it('reads ./.pipeline.yml by default and sums up the tasks it would create', async () => {
    const result = await lint();
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '.pipeline.yml: ok: 3 tasks (build, test:node=20, test:node=22)\n');
    const json = await lint('--json');
    assert.equal(json.code, 0);
    const parsed = JSON.parse(json.stdout) as { ok: boolean; tasks: { name: string; image: string }[] };
    assert.equal(parsed.ok, true);
    assert.deepEqual(parsed.tasks.map((task) => `${task.name} ${task.image}`), ['build node:22', 'test:node=20 node:20', 'test:node=22 node:22']);
  });

  it('prints every problem as FILE:LINE:COLUMN: PATH: MESSAGE and exits 1', async () => {
    const result = await lint('broken.yml');
    assert.equal(result.code, 1);
    assert.deepEqual(result.stdout.trimEnd().split('\n'), [
      'broken.yml:3:5: tasks.build.imgae: unknown key "imgae"; did you mean "image"?',
      'broken.yml:4:5: tasks.build.scrpt: unknown key "scrpt"; did you mean "script"?',
      'broken.yml:2:3: tasks.build.script: required',
      'broken.yml:8:5: tasks.test.timeout: must be a whole number of seconds or a duration such as 90s, 30m or 2h, got "soon"',
      'broken.yml:9:20: tasks.test.needs[1]: no task named "pkg" in this file',
    ]);
    assert.match(result.stderr, /broken\.yml: 5 problems/);
    const json = JSON.parse((await lint('broken.yml', '--json')).stdout) as { ok: boolean; problems: { path: string; line: number; column: number }[] };
    assert.equal(json.ok, false);
    assert.deepEqual(json.problems.map((problem) => [problem.path, problem.line, problem.column]), [
      ['tasks.build.imgae', 3, 5],
      ['tasks.build.scrpt', 4, 5],
      ['tasks.build.script', 2, 3],
      ['tasks.test.timeout', 8, 5],
      ['tasks.test.needs[1]', 9, 20],
    ]);
  });

  it('places a YAML syntax error where the parser found it', async () => {
    const result = await lint('syntax.yml');
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^syntax\.yml:3:1: YAML syntax error/);
  });

  it('exits 2 naming the file when it cannot be read, and refuses two files', async () => {
    const missing = await lint('nowhere.yml');
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, new RegExp(`cannot read ${join(dir, 'nowhere.yml').replace(/[.]/g, '\\.')}: no such file`));
    const json = await lint('nowhere.yml', '--json');
    assert.equal(json.code, 2);
    assert.equal((JSON.parse(json.stdout) as { error: string }).error, 'not_found');
    assert.equal((await lint('a.yml', 'b.yml')).code, 2);
  });
});
