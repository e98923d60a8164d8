import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePipeline } from './compile.js';
import type { CompiledTask } from './types.js';
import { compileTasks } from './test-support.js';
import { readFileSync } from 'node:fs';

const EXAMPLE = `
image: debian:12            # default image of every task (optional)
env: {LANG: C.UTF-8}        # environment of every task (optional)
tasks:
  lint:
    image: node:22
    script: [npm ci, npm run lint]
  test:
    needs: [lint]
    matrix: {node: ["20", "22"], os: [linux]}
    arch: amd64
    requires: [docker]
    env: {CI_DEBUG: "1"}
    services: [{name: db, image: "postgres:16", env: {POSTGRES_PASSWORD: x}}]
    artifacts: ["coverage/**", "dist/*.tgz"]
    workdir: /workspace
    timeout: 30m
    retries: 1
    allow_failure: false
    script: npm test
  package:
    image: "node:\${node}"
    matrix: {node: [22]}
    needs: test
    script:
      - npm pack
`;

function expectedTestVariant(node: string): CompiledTask {
  return {
    name: `test:node=${node},os=linux`,
    baseName: 'test',
    image: 'debian:12',
    script: ['npm test'],
    env: { LANG: 'C.UTF-8', CI_DEBUG: '1', node, os: 'linux' },
    arch: 'amd64',
    requires: ['docker'],
    services: [{ name: 'db', image: 'postgres:16', env: { POSTGRES_PASSWORD: 'x' }, command: [] }],
    artifactPaths: ['coverage/**', 'dist/*.tgz'],
    artifactExpireIn: null,
    workdir: '/workspace',
    timeout: 1800,
    maxAttempts: 2,
    allowFailure: false,
    needs: ['lint'],
    matrix: { node, os: 'linux' },
  };
}

describe('compilePipeline', () => {
  it('compiles the example of the issue to exactly the expected tasks', () => {
    assert.deepEqual(compileTasks(EXAMPLE), [
      {
        name: 'lint',
        baseName: 'lint',
        image: 'node:22',
        script: ['npm ci', 'npm run lint'],
        env: { LANG: 'C.UTF-8' },
        arch: 'amd64',
        requires: [],
        services: [],
        artifactPaths: [],
        artifactExpireIn: null,
        workdir: '/workspace',
        timeout: 3600,
        maxAttempts: 1,
        allowFailure: false,
        needs: [],
        matrix: {},
      },
      expectedTestVariant('20'),
      expectedTestVariant('22'),
      {
        name: 'package:node=22',
        baseName: 'package',
        image: 'node:22',
        script: ['npm pack'],
        env: { LANG: 'C.UTF-8', node: '22' },
        arch: 'amd64',
        requires: [],
        services: [],
        artifactPaths: [],
        artifactExpireIn: null,
        workdir: '/workspace',
        timeout: 3600,
        maxAttempts: 1,
        allowFailure: false,
        needs: ['test:node=20,os=linux', 'test:node=22,os=linux'],
        matrix: { node: '22' },
      },
    ]);
  });

  it('is pure: compiling the same text twice gives equal, independent results', () => {
    const first = compileTasks(EXAMPLE);
    const second = compileTasks(EXAMPLE);
    assert.deepEqual(first, second);
    first[1]?.script.push('changed');
    first[1]?.services[0]?.command.push('changed');
    if (first[1]) first[1].env.EXTRA = 'changed';
    // Variants of one task do not share arrays or records either.
    assert.deepEqual(first[2], expectedTestVariant('22'));
    assert.deepEqual(second[1], expectedTestVariant('20'));
  });

  it('keeps the file order of tasks, even when a task needs one declared later', () => {
    const tasks = compileTasks('image: a\ntasks:\n  z: {script: x, needs: [b]}\n  b: {script: x}\n  a: {script: x, needs: [z]}\n');
    assert.deepEqual(tasks.map((task) => [task.name, task.needs]), [['z', ['b']], ['b', []], ['a', ['z']]]);
  });

  it('reports the problems of several keys and tasks together, in file order', () => {
    const result = compilePipeline(`
image: 7
colour: blue
tasks:
  a:
    script: []
    timeout: 0
    needs: [nope]
  b:
    retries: 11
    script: x
`);
    assert.equal(result.ok, false);
    if (result.ok) return;
    assert.deepEqual(result.problems.map((problem) => problem.path), [
      'image',
      'colour',
      'tasks.a.script',
      'tasks.a.timeout',
      'tasks.a.needs[0]',
      'tasks.b.retries',
    ]);
  });

  it('compiles a 64-variant matrix', () => {
    const source = 'tasks:\n  t:\n    image: "node:${a}"\n    script: [make]\n    matrix: {a: [1, 2, 3, 4], b: [1, 2, 3, 4], c: [1, 2, 3, 4]}\n';
    assert.equal(compileTasks(source).length, 64);
  });

  it('compiles a 1000-task chain', () => {
    const lines = ['image: node:22', 'env: {CI: "1"}', 'tasks:'];
    for (let i = 0; i < 1000; i++) {
      lines.push(`  t${i}:`, `    needs: [${i === 0 ? '' : `t${i - 1}`}]`, '    env: {A: "1"}', '    script:', '      - npm ci', '      - npm test');
    }
    const source = lines.join('\n');
    const tasks = compileTasks(source);
    assert.equal(tasks.length, 1000);
    assert.deepEqual(tasks[999]?.needs, ['t998']);
  });

  it('compiles the example pipeline of docs/examples', () => {
    const source = readFileSync(new URL('../../../../docs/examples/node-project.pipeline.yml', import.meta.url), 'utf8');
    const tasks = compileTasks(source);
    assert.deepEqual(tasks.map((task) => [task.name, task.image, task.needs]), [
      ['lint', 'docker.io/library/node:22-bookworm-slim', []],
      ['test:node=20', 'docker.io/library/node:20-bookworm-slim', ['lint']],
      ['test:node=22', 'docker.io/library/node:22-bookworm-slim', ['lint']],
    ]);
  });
});
