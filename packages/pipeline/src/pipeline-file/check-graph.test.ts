import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertOneProblem, assertProblemPaths, compileTasks } from './test-support.js';

function file(...tasks: string[]): string {
  return ['image: x', 'tasks:', ...tasks.map((task) => `  ${task}`)].join('\n');
}

describe('needs', () => {
  it('takes a list or one base name, dropping repeats', () => {
    const tasks = compileTasks(file('a: {script: y}', 'b: {script: y}', 'c: {script: y, needs: [b, a, b]}', 'd: {script: y, needs: a}'));
    assert.deepEqual(tasks.map((task) => task.needs), [[], [], ['b', 'a'], ['a']]);
  });

  it('expands a matrix task to all its variants, in order', () => {
    const tasks = compileTasks(file('build: {script: y, matrix: {os: [linux, mac], arch: [x64, arm]}}', 'ship: {script: y, needs: [build]}'));
    assert.deepEqual(tasks.at(-1)?.needs, ['build:os=linux,arch=x64', 'build:os=linux,arch=arm', 'build:os=mac,arch=x64', 'build:os=mac,arch=arm']);
  });

  it('gives every variant of a matrix task the same needs', () => {
    const tasks = compileTasks(file('a: {script: y}', 'b: {script: y, needs: [a], matrix: {v: [1, 2]}}'));
    assert.deepEqual(tasks.slice(1).map((task) => task.needs), [['a'], ['a']]);
  });

  it('reports an unknown name at its entry', () => {
    assertOneProblem(file('a: {script: y, needs: [a0, b]}', 'b: {script: y}'), 'tasks.a.needs[0]', /no task named "a0"/);
    assertOneProblem(file('a: {script: y, needs: nope}'), 'tasks.a.needs', /no task named "nope"/);
  });

  it('does not accept a variant name, only base names', () => {
    assertOneProblem(file('a: {script: y, matrix: {v: [1]}}', 'b: {script: y, needs: ["a:v=1"]}'), 'tasks.b.needs[0]', /no task named "a:v=1"/);
  });

  it('refuses wrong types', () => {
    assertOneProblem(file('a: {script: y, needs: {b: 1}}', 'b: {script: y}'), 'tasks.a.needs', /must be a list of task names or a single task name, got a map/);
    assertOneProblem(file('a: {script: y, needs: [1]}'), 'tasks.a.needs[0]', /must be a string, got a number/);
  });
});

describe('cycles in needs', () => {
  it('refuses a task that needs itself', () => {
    assertOneProblem(file('a: {script: y, needs: [a]}'), 'tasks.a.needs[0]', /^needs form a cycle: a -> a$/);
    assertOneProblem(file('a: {script: y, needs: a}'), 'tasks.a.needs', /^needs form a cycle: a -> a$/);
  });

  it('reports a two-task cycle once', () => {
    assertOneProblem(file('a: {script: y, needs: [b]}', 'b: {script: y, needs: [a]}'), 'tasks.b.needs[0]', /^needs form a cycle: a -> b -> a$/);
  });

  it('reports a three-task cycle once, naming it in order', () => {
    assertOneProblem(
      file('a: {script: y, needs: [c]}', 'b: {script: y, needs: [a]}', 'c: {script: y, needs: [x, b]}', 'x: {script: y}'),
      'tasks.b.needs[0]',
      /^needs form a cycle: a -> c -> b -> a$/,
    );
  });

  it('reports separate cycles separately', () => {
    const problems = assertProblemPaths(
      file('a: {script: y, needs: [b]}', 'b: {script: y, needs: [a]}', 'c: {script: y, needs: [c]}', 'd: {script: y, needs: [a, c]}'),
      ['tasks.b.needs[0]', 'tasks.c.needs[0]'],
    );
    assert.match(problems[1]?.message ?? '', /c -> c/);
  });

  it('finds a cycle through a matrix task', () => {
    assertOneProblem(file('a: {script: y, matrix: {v: [1, 2]}, needs: [b]}', 'b: {script: y, needs: [a]}'), 'tasks.b.needs[0]', /a -> b -> a/);
  });

  it('does not mistake a diamond for a cycle', () => {
    const tasks = compileTasks(file('a: {script: y}', 'b: {script: y, needs: [a]}', 'c: {script: y, needs: [a]}', 'd: {script: y, needs: [b, c]}'));
    assert.equal(tasks.length, 4);
  });

  it('handles a chain of 1000 tasks without overflowing the stack, and a cycle closing it', () => {
    const chain = Array.from({ length: 1000 }, (_, i) => `t${i}: {script: y, needs: [t${(i + 1) % 1000}]}`);
    const problems = assertProblemPaths(file(...chain), ['tasks.t999.needs[0]']);
    assert.match(problems[0]?.message ?? '', /^needs form a cycle: t0 -> t1 -> .* -> t999 -> t0$/);
  });
});
