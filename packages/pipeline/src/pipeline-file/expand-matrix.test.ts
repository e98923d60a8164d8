import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertOneProblem, assertProblemPaths, compileTasks, withTask } from './test-support.js';
import { MAX_VARIANTS_PER_TASK } from './types.js';

describe('matrix', () => {
  it('names variants in declared key order, first key varying slowest', () => {
    const tasks = compileTasks(withTask('matrix: {os: [linux, mac], node: [20, 22, 24]}'));
    assert.deepEqual(tasks.map((task) => task.name), [
      't:os=linux,node=20', 't:os=linux,node=22', 't:os=linux,node=24',
      't:os=mac,node=20', 't:os=mac,node=22', 't:os=mac,node=24',
    ]);
    assert.deepEqual(tasks[4]?.matrix, { os: 'mac', node: '22' });
    assert.deepEqual(Object.keys(tasks[4]?.matrix ?? {}), ['os', 'node']);
    assert.ok(tasks.every((task) => task.baseName === 't'));
  });

  it('exports each value into the env under its key', () => {
    const [task] = compileTasks(withTask('matrix: {NODE_VERSION: ["22"]}'));
    assert.deepEqual(task?.env, { NODE_VERSION: '22' });
  });

  it('converts scalar values with String()', () => {
    const tasks = compileTasks(withTask('matrix: {v: [1, 1.5, true, "x y", ""]}'));
    assert.deepEqual(tasks.map((task) => task.matrix.v), ['1', '1.5', 'true', 'x y', '']);
    assert.equal(tasks[4]?.name, 't:v=');
  });

  it('treats an empty matrix as no matrix', () => {
    assert.deepEqual(compileTasks(withTask('matrix: {}')).map((task) => task.name), ['t']);
  });

  it('substitutes ${key} in the task image and in service images', () => {
    const tasks = compileTasks(withTask(
      'image: "node:${node}-${os}"',
      'matrix: {node: [20, 22], os: [slim]}',
      'services: [{name: db, image: "postgres:${node}"}]',
    ).replace('    image: alpine:3\n', ''));
    assert.deepEqual(tasks.map((task) => [task.image, task.services[0]?.image]), [
      ['node:20-slim', 'postgres:20'],
      ['node:22-slim', 'postgres:22'],
    ]);
  });

  it('substitutes ${key} in the top-level image per task', () => {
    const tasks = compileTasks('image: "node:${node}"\ntasks:\n  t: {script: y, matrix: {node: [20]}}\n  u: {script: y, image: plain}\n');
    assert.deepEqual(tasks.map((task) => task.image), ['node:20', 'plain']);
  });

  it('leaves text that is not a complete ${key} alone', () => {
    const tasks = compileTasks(withTask('matrix: {a: [1]}', 'services: [{name: s, image: "x:$a-${a-$${a}"}]'));
    assert.equal(tasks[0]?.services[0]?.image, 'x:$a-${a-$1');
  });

  it('reports ${key} naming a key the task does not have', () => {
    assertOneProblem('tasks:\n  t: {image: "node:${node}", script: y}\n', 'tasks.t.image', /\$\{node\} is not a matrix key of this task/);
    assertOneProblem(withTask('matrix: {a: [1]}', 'services: [{name: s, image: "x:${b}"}]'), 'tasks.t.services[0].image', /\$\{b\}/);
    assertOneProblem('image: "node:${node}"\ntasks:\n  t: {script: y, matrix: {node: [20]}}\n  u: {script: y}\n', 'image', /\$\{node\} is not a matrix key of task u/);
    assertOneProblem('tasks:\n  t: {image: "a${}b", script: y}\n', 'tasks.t.image', /\$\{\} is not a matrix key/);
  });

  it('refuses bad keys, non-list values, empty lists and non-scalar values', () => {
    assertProblemPaths(withTask('matrix: {1a: [x], b: x, c: [], d: [[1]], e: [null], f: [{a: 1}]}'), [
      'tasks.t.matrix.1a', 'tasks.t.matrix.b', 'tasks.t.matrix.c', 'tasks.t.matrix.d[0]', 'tasks.t.matrix.e[0]', 'tasks.t.matrix.f[0]',
    ]);
    assertOneProblem(withTask('matrix: [a, b]'), 'tasks.t.matrix', /must be a map/);
  });

  it('does not report ${key} again when the key is declared but its values are wrong', () => {
    assertOneProblem('tasks:\n  t: {image: "node:${v}", script: y, matrix: {v: []}}\n', 'tasks.t.matrix.v', /empty list/);
  });

  it('refuses values that give two variants the same name', () => {
    assertOneProblem(withTask('matrix: {a: ["1", 1]}'), 'tasks.t.matrix.a[1]', /repeats the value "1" of tasks\.t\.matrix\.a\[0\]/);
    assertOneProblem(withTask('matrix: {a: [x, y, x]}'), 'tasks.t.matrix.a[2]', /repeats the value "x"/);
    assertOneProblem(withTask('matrix: {a: ["true", true]}'), 'tasks.t.matrix.a[1]', /repeats/);
  });

  it('refuses values whose separators make two variant names equal', () => {
    assertOneProblem(withTask('matrix: {a: ["1,b=2", "1"], b: ["3", "2,b=3"]}'), 'tasks.t.matrix', /two variants would both be named "t:a=1,b=2,b=3"/);
  });

  it(`accepts ${MAX_VARIANTS_PER_TASK} variants and refuses ${MAX_VARIANTS_PER_TASK + 1}`, () => {
    const values = (count: number): string => Array.from({ length: count }, (_, i) => i).join(', ');
    assert.equal(compileTasks(withTask(`matrix: {a: [${values(16)}], b: [${values(16)}]}`)).length, 256);
    assertOneProblem(withTask(`matrix: {a: [${values(257)}]}`), 'tasks.t.matrix', /gives 257 variants; at most 256/);
  });

  it('refuses a huge product without building it', () => {
    const axis = `[${Array.from({ length: 100 }, (_, i) => i).join(',')}]`;
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}: ${axis}`).join(', ');
    const problems = assertProblemPaths(withTask(`matrix: {${keys}}`), ['tasks.t.matrix', 'tasks']);
    assert.match(problems[0]?.message ?? '', /gives more than 2\^53 variants/);
    assert.match(problems[1]?.message ?? '', /gives more than 2\^53 tasks/);
  });
});
