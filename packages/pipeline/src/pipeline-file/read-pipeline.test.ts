import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertOneProblem, assertProblemPaths, compileProblems, compileTasks } from './test-support.js';
import { MAX_TASKS } from './types.js';

describe('the top level', () => {
  it('says tasks are required for an empty file, a blank one and one of only comments', () => {
    for (const source of ['', '\n\n', '# nothing yet\n# really\n', '~\n']) {
      assertOneProblem(source, 'tasks', /required/);
    }
  });

  it('refuses a root that is not a map', () => {
    assertOneProblem('- a\n- b\n', '', /must be a map with a "tasks" key, got a list/);
    assertOneProblem('just text\n', '', /must be a map with a "tasks" key, got a string/);
  });

  it('requires tasks, as a non-empty map', () => {
    assertOneProblem('image: x\n', 'tasks', /required/);
    assertOneProblem('tasks: {}\n', 'tasks', /at least one task/);
    assertOneProblem('tasks: [a, b]\n', 'tasks', /must be a map .*got a list/);
    assertOneProblem('tasks:\n', 'tasks', /must be a map .*got null/);
  });

  it('reports unknown top-level keys, suggesting the likely one', () => {
    const problems = assertProblemPaths('image: x\nEnv: {}\nstages: [a]\nimgae: y\ntasks: {t: {script: y}}\n', ['Env', 'stages', 'imgae']);
    assert.match(problems[0]?.message ?? '', /unknown key "Env"; did you mean "env"\?/);
    assert.match(problems[2]?.message ?? '', /did you mean "image"\?/);
    assert.match(problems[1]?.message ?? '', /unknown key "stages"; known keys: image, env, tasks/);
  });

  it('explains that merge keys are not supported', () => {
    assertOneProblem('image: x\ntasks:\n  t:\n    <<: {script: y}\n    script: y\n', 'tasks.t.<<', /merge keys/);
  });

  it('checks the top-level image and env', () => {
    assertOneProblem('image: [a]\ntasks: {t: {script: y}}\n', 'image', /must be a non-empty string, got a list/);
    assertOneProblem('image: ""\ntasks: {t: {script: y}}\n', 'image', /must not be empty/);
    assertOneProblem('image: x\nenv: [A=1]\ntasks: {t: {script: y}}\n', 'env', /must be a map/);
    assertOneProblem('image: x\nenv: {FOO: {a: 1}}\ntasks: {t: {script: y}}\n', 'env.FOO', /must be a string, number or boolean, got a map/);
    assertOneProblem('image: x\nenv: {FOO: null}\ntasks: {t: {script: y}}\n', 'env.FOO', /got null/);
    assertOneProblem('image: x\nenv: {FOO: [1]}\ntasks: {t: {script: y}}\n', 'env.FOO', /got a list/);
    assertOneProblem('image: x\nenv: {1FOO: a}\ntasks: {t: {script: y}}\n', 'env.1FOO', /must match/);
    assertOneProblem('image: x\nenv: {MY-VAR: a}\ntasks: {t: {script: y}}\n', 'env.MY-VAR', /must match/);
  });

  it('uses the top-level image for tasks without their own, wherever it is written', () => {
    const tasks = compileTasks('tasks:\n  a: {script: y}\n  b: {script: y, image: own}\nimage: shared:1\n');
    assert.deepEqual(tasks.map((task) => task.image), ['shared:1', 'own']);
  });

  it('does not require an image: a task without one is for shell workers', () => {
    assert.deepEqual(compileTasks('tasks:\n  a: {script: y}\n  b: {script: y, image: own}\n').map((task) => task.image), ['', 'own']);
  });

  it('checks task names', () => {
    assertOneProblem('image: x\ntasks:\n  -bad: {script: y}\n', 'tasks.-bad', /must match/);
    assertOneProblem('image: x\ntasks:\n  has space: {script: y}\n', 'tasks.has space', /must match/);
    assertOneProblem(`image: x\ntasks:\n  ${'a'.repeat(64)}: {script: y}\n`, `tasks.${'a'.repeat(64)}`, /must match/);
    const names = compileTasks(`image: x\ntasks:\n  ${'a'.repeat(63)}: {script: y}\n  A.b_c-9: {script: y}\n  0: {script: y}\n`);
    assert.deepEqual(names.map((task) => task.name), ['a'.repeat(63), 'A.b_c-9', '0']);
  });

  it('shortens a very long key in paths and messages so problems stay small', () => {
    const name = 'x'.repeat(10_000);
    // An explicit key (`? …`), since YAML limits implicit keys to 1024 characters.
    const problems = compileProblems(`image: x\ntasks:\n  ? ${name}\n  : {script: y, a: 1, b: 2}\n`);
    assert.equal(problems.length, 3);
    for (const problem of problems) assert.ok(problem.path.length + problem.message.length < 400, JSON.stringify(problem));
  });

  it(`accepts ${MAX_TASKS} tasks and refuses ${MAX_TASKS + 1}`, () => {
    const file = (count: number): string => {
      const lines = ['image: x', 'tasks:'];
      for (let i = 0; i < count; i++) lines.push(`  t${i}: {script: y}`);
      return lines.join('\n');
    };
    assert.equal(compileTasks(file(MAX_TASKS)).length, MAX_TASKS);
    assertOneProblem(file(MAX_TASKS + 1), 'tasks', /1001 tasks .*at most 1000/);
  });

  it(`counts matrix variants towards the ${MAX_TASKS} tasks`, () => {
    const lines = ['image: x', 'tasks:'];
    for (let i = 0; i < 4; i++) lines.push(`  t${i}: {script: y, matrix: {a: [${Array.from({ length: 250 }, (_, v) => v).join(',')}]}}`);
    lines.push('  extra: {script: y}');
    assertOneProblem(lines.join('\n'), 'tasks', /1001 tasks \(counting matrix variants\)/);
  });

  it('caps the list of problems and says how many were left out', () => {
    const lines = ['image: x', 'tasks:'];
    for (let i = 0; i < 600; i++) lines.push(`  t${i}: {script: y, retries: 99}`);
    const problems = compileProblems(lines.join('\n'));
    assert.equal(problems.length, 501);
    assert.deepEqual(problems[500], { path: '', message: '100 more problems not shown' });
  });

  it('refuses a file whose compiled tasks would be enormous', () => {
    // 150 KB of script copied into 256 variants.
    const script = Array.from({ length: 500 }, () => `      - echo ${'x'.repeat(290)}`).join('\n');
    const source = `image: x\ntasks:\n  t:\n    matrix: {a: [1, 2, 3, 4, 5, 6, 7, 8], b: [1, 2, 3, 4, 5, 6, 7, 8], c: [1, 2, 3, 4]}\n    script:\n${script}\n`;
    assertOneProblem(source, 'tasks', /about 3\d MiB of text; at most 32 MiB/);
  });
});
