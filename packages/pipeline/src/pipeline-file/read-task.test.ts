import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertOneProblem, assertProblemPaths, compileTasks, withTask } from './test-support.js';

function compileOne(...lines: string[]) {
  const [task] = compileTasks(withTask(...lines));
  assert.ok(task);
  return task;
}

describe('task keys', () => {
  it('fills in the defaults', () => {
    const task = compileOne();
    assert.deepEqual(
      {
        arch: task.arch, requires: task.requires, env: task.env, services: task.services, artifactPaths: task.artifactPaths,
        workdir: task.workdir, timeout: task.timeout, maxAttempts: task.maxAttempts, allowFailure: task.allowFailure,
        needs: task.needs, matrix: task.matrix, name: task.name, baseName: task.baseName,
      },
      {
        arch: 'amd64', requires: [], env: {}, services: [], artifactPaths: [], workdir: '/workspace', timeout: 3600,
        maxAttempts: 1, allowFailure: false, needs: [], matrix: {}, name: 't', baseName: 't',
      },
    );
  });

  it('refuses a task that is not a map', () => {
    assertOneProblem('image: x\ntasks:\n  t: [make]\n', 'tasks.t', /must be a map of task keys, got a list/);
    assertOneProblem('image: x\ntasks:\n  t:\n', 'tasks.t', /got null/);
  });

  it('reports unknown task keys with a suggestion', () => {
    const problems = assertProblemPaths(withTask('allow-failure: true', 'depends_on: [x]', 'timeout_minutes: 3'), [
      'tasks.t.allow-failure', 'tasks.t.depends_on', 'tasks.t.timeout_minutes',
    ]);
    assert.match(problems[0]?.message ?? '', /did you mean "allow_failure"\?/);
    assert.match(problems[1]?.message ?? '', /known keys: image, script, needs/);
  });

  describe('image', () => {
    it('must be a non-empty string', () => {
      assertOneProblem('tasks:\n  t: {image: 22, script: y}\n', 'tasks.t.image', /must be a non-empty string, got a number/);
      assertOneProblem('tasks:\n  t: {image: "", script: y}\n', 'tasks.t.image', /must not be empty/);
    });
  });

  describe('script', () => {
    it('is required', () => {
      assertOneProblem('image: x\ntasks:\n  t: {arch: arm64}\n', 'tasks.t.script', /required/);
    });

    it('takes a list, or one string for a one-element list', () => {
      assert.deepEqual(compileTasks('image: x\ntasks:\n  t: {script: make all}\n')[0]?.script, ['make all']);
      assert.deepEqual(compileTasks('image: x\ntasks:\n  t:\n    script:\n      - a\n      - |\n        multi\n        line\n')[0]?.script, ['a', 'multi\nline\n']);
    });

    it('refuses an empty list, an empty string, non-string entries and maps', () => {
      assertOneProblem('image: x\ntasks:\n  t: {script: []}\n', 'tasks.t.script', /must not be an empty list/);
      assertOneProblem('image: x\ntasks:\n  t: {script: ""}\n', 'tasks.t.script', /must not be empty/);
      assertProblemPaths('image: x\ntasks:\n  t: {script: [a, 1, "", {b: c}, null]}\n', [
        'tasks.t.script[1]', 'tasks.t.script[2]', 'tasks.t.script[3]', 'tasks.t.script[4]',
      ]);
      assertOneProblem('image: x\ntasks:\n  t: {script: {a: b}}\n', 'tasks.t.script', /a list of strings or a single string, got a map/);
    });
  });

  describe('arch', () => {
    it('takes a lower-case name', () => {
      assert.equal(compileOne('arch: arm64').arch, 'arm64');
      assert.equal(compileOne('arch: x86_64').arch, 'x86_64');
    });

    it('refuses other spellings and types', () => {
      assertOneProblem(withTask('arch: ARM64'), 'tasks.t.arch', /must match/);
      assertOneProblem(withTask('arch: ""'), 'tasks.t.arch', /must match/);
      assertOneProblem(withTask(`arch: ${'a'.repeat(33)}`), 'tasks.t.arch', /must match/);
      assertOneProblem(withTask('arch: [amd64]'), 'tasks.t.arch', /must be a string, got a list/);
    });
  });

  describe('requires', () => {
    it('takes a list of feature names, dropping repeats', () => {
      assert.deepEqual(compileOne('requires: [docker, kvm, docker, gpu.v2]').requires, ['docker', 'kvm', 'gpu.v2']);
    });

    it('refuses bad names and a single string', () => {
      assertProblemPaths(withTask('requires: [docker, "", -x, 3]'), ['tasks.t.requires[1]', 'tasks.t.requires[2]', 'tasks.t.requires[3]']);
      assertOneProblem(withTask('requires: docker'), 'tasks.t.requires', /must be a list of strings, got a string/);
    });
  });

  describe('env', () => {
    it('accepts scalars, written as text', () => {
      assert.deepEqual(compileOne('env: {A: x, B: 1, C: 1.5, D: true, E: "007", F: 007, G: ""}').env, {
        A: 'x', B: '1', C: '1.5', D: 'true', E: '007', F: '7', G: '',
      });
    });

    it('refuses null, lists, maps and bad names, each at its own path', () => {
      assertProblemPaths(withTask('env: {A: null, B: [1], C: {x: 1}, 9D: x, OK: y}'), [
        'tasks.t.env.A', 'tasks.t.env.B', 'tasks.t.env.C', 'tasks.t.env.9D',
      ]);
    });

    it('layers the top-level env, the task env and the matrix values, later winning', () => {
      const [task] = compileTasks(
        'image: x\nenv: {A: top, B: top, C: top}\ntasks:\n  t: {script: y, env: {B: task, C: task}, matrix: {C: [matrix]}}\n',
      );
      assert.deepEqual(task?.env, { A: 'top', B: 'task', C: 'matrix' });
    });

    it('keeps a variable named __proto__ as an ordinary variable', () => {
      const env = compileOne('env: {__proto__: x, A: y}').env;
      assert.equal(Object.getPrototypeOf(env), Object.prototype);
      assert.deepEqual(Object.entries(env), [['__proto__', 'x'], ['A', 'y']]);
    });
  });

  describe('services', () => {
    it('reads name, image, env and command', () => {
      const services = compileOne(
        'services:',
        '  - {name: db, image: "postgres:16", env: {POSTGRES_PASSWORD: x, PORT: 5432}, command: [postgres, -c, fsync=off]}',
        '  - {name: cache-1, image: redis, command: redis-server}',
        '  - {name: q, image: rabbit}',
      ).services;
      assert.deepEqual(services, [
        { name: 'db', image: 'postgres:16', env: { POSTGRES_PASSWORD: 'x', PORT: '5432' }, command: ['postgres', '-c', 'fsync=off'] },
        { name: 'cache-1', image: 'redis', env: {}, command: ['redis-server'] },
        { name: 'q', image: 'rabbit', env: {}, command: [] },
      ]);
    });

    it('requires name and image and refuses unknown keys', () => {
      assertProblemPaths(withTask('services: [{ports: [5432]}]'), [
        'tasks.t.services[0].ports', 'tasks.t.services[0].name', 'tasks.t.services[0].image',
      ]);
    });

    it('checks each key', () => {
      assertProblemPaths(withTask('services: [{name: DB, image: [x], env: {A: null}, command: {a: b}}]'), [
        'tasks.t.services[0].name', 'tasks.t.services[0].image', 'tasks.t.services[0].env.A', 'tasks.t.services[0].command',
      ]);
      assertOneProblem(withTask('services: [{name: db, image: x, command: [a, 1]}]'), 'tasks.t.services[0].command[1]', /got a number/);
      assertOneProblem(withTask('services: [{name: db, image: ""}]'), 'tasks.t.services[0].image', /must not be empty/);
      assertOneProblem(withTask('services: [{name: db, image: x, command: ""}]'), 'tasks.t.services[0].command', /must not be empty/);
    });

    it('refuses a repeated name within a task, and a services value that is not a list', () => {
      assertOneProblem(withTask('services: [{name: db, image: a}, {name: db, image: b}]'), 'tasks.t.services[1].name', /repeats the name "db"/);
      assertOneProblem(withTask('services: {name: db, image: a}'), 'tasks.t.services', /must be a list of services, got a map/);
      assertOneProblem(withTask('services: [db]'), 'tasks.t.services[0]', /must be a map/);
    });

    it('allows the same service name in different tasks', () => {
      const tasks = compileTasks('image: x\ntasks:\n  a: {script: y, services: [{name: db, image: p}]}\n  b: {script: y, services: [{name: db, image: p}]}\n');
      assert.equal(tasks.length, 2);
    });
  });

  describe('artifacts', () => {
    it('takes relative globs', () => {
      assert.deepEqual(compileOne('artifacts: ["coverage/**", "dist/*.tgz", "./out/a..b", ".hidden/x"]').artifactPaths, [
        'coverage/**', 'dist/*.tgz', './out/a..b', '.hidden/x',
      ]);
    });

    it('refuses absolute paths, .. segments, backslashes, NUL and empty strings', () => {
      const problems = assertProblemPaths(withTask('artifacts: ["/etc/passwd", "../up", "a/../../b", "a\\\\b", "a\\0b", "", ".."]'), [
        'tasks.t.artifacts[0]', 'tasks.t.artifacts[1]', 'tasks.t.artifacts[2]', 'tasks.t.artifacts[3]',
        'tasks.t.artifacts[4]', 'tasks.t.artifacts[5]', 'tasks.t.artifacts[6]',
      ]);
      assert.match(problems[0]?.message ?? '', /absolute/);
      assert.match(problems[1]?.message ?? '', /\.\. segment/);
      assert.match(problems[3]?.message ?? '', /backslash/);
      assert.match(problems[4]?.message ?? '', /NUL/);
      assert.match(problems[5]?.message ?? '', /must not be empty/);
    });

    it('refuses absurd or malformed globs, naming the entry, and compiles the pathological one at once', () => {
      const long = 'a'.repeat(1025);
      const problems = assertProblemPaths(withTask(`artifacts: ["[z-a].txt", "dist/[abc", "${'*'.repeat(33)}", "${long}", "ok/[a-z]*"]`), [
        'tasks.t.artifacts[0]', 'tasks.t.artifacts[1]', 'tasks.t.artifacts[2]', 'tasks.t.artifacts[3]',
      ]);
      assert.match(problems[0]?.message ?? '', /range z-a in \[z-a\], whose start is after its end; see "Artifacts and workdir"/);
      assert.match(problems[1]?.message ?? '', /'\[' at position 6 without its closing '\]'/);
      assert.match(problems[2]?.message ?? '', /has 33 '\*'; at most 32 are allowed/);
      assert.match(problems[3]?.message ?? '', /1025 characters long; at most 1024/);
      assert.deepEqual(compileOne('artifacts: ["*a*a*a*a*a*a*a*a*a*a*b", "[]x]", "[!a-]"]').artifactPaths, ['*a*a*a*a*a*a*a*a*a*a*b', '[]x]', '[!a-]']);
    });

    it('refuses a value that is not a list', () => {
      assertOneProblem(withTask('artifacts: "dist/*"'), 'tasks.t.artifacts', /must be a list of strings, got a string/);
    });

    it('takes a map of paths and expire_in; the list form leaves the expiry to the service', () => {
      const task = compileOne('artifacts: {paths: ["dist/*"], expire_in: 7d}');
      assert.deepEqual([task.artifactPaths, task.artifactExpireIn], [['dist/*'], 7 * 86_400]);
      assert.equal(compileOne('artifacts: ["dist/*"]').artifactExpireIn, null);
      assert.equal(compileOne('artifacts: {paths: ["dist/*"]}').artifactExpireIn, null);
      for (const [written, seconds] of [['90', 90], ['90s', 90], ['45m', 2700], ['12h', 43_200], ['3650d', 3650 * 86_400]] as const) {
        assert.equal(compileOne(`artifacts: {paths: [a], expire_in: ${written}}`).artifactExpireIn, seconds, written);
      }
    });

    it('refuses a map without paths, unknown keys, wrong globs and wrong durations', () => {
      assertOneProblem(withTask('artifacts: {expire_in: 1d}'), 'tasks.t.artifacts.paths', /required/);
      const unknown = assertProblemPaths(withTask('artifacts: {paths: [a], expires_in: 1d}'), ['tasks.t.artifacts.expires_in']);
      assert.match(unknown[0]?.message ?? '', /did you mean "expire_in"\?/);
      assertOneProblem(withTask('artifacts: {paths: ["/abs"]}'), 'tasks.t.artifacts.paths[0]', /absolute/);
      assertOneProblem(withTask('artifacts: {paths: "dist/*"}'), 'tasks.t.artifacts.paths', /must be a list of strings/);
      for (const bad of ['1w', '"1.5d"', '0', '0d', '3651d', '-1', 'never', '[1d]']) {
        assertOneProblem(withTask(`artifacts: {paths: [a], expire_in: ${bad}}`), 'tasks.t.artifacts.expire_in', /must be/);
      }
    });

    it('still refuses days in timeout', () => {
      assertOneProblem(withTask('timeout: 1d'), 'tasks.t.timeout', /duration such as 90s, 30m or 2h/);
    });
  });

  describe('workdir', () => {
    it('takes an absolute path', () => {
      assert.equal(compileOne('workdir: /src/app').workdir, '/src/app');
      assert.equal(compileOne('workdir: /').workdir, '/');
    });

    it('refuses relative paths, .. segments and other types', () => {
      assertOneProblem(withTask('workdir: src'), 'tasks.t.workdir', /absolute/);
      assertOneProblem(withTask('workdir: /src/../etc'), 'tasks.t.workdir', /\.\. segment/);
      assertOneProblem(withTask('workdir: /a/..'), 'tasks.t.workdir', /\.\. segment/);
      assertOneProblem(withTask('workdir: ""'), 'tasks.t.workdir', /must not be empty/);
      assertOneProblem(withTask('workdir: 7'), 'tasks.t.workdir', /got a number/);
    });
  });

  describe('timeout', () => {
    it('takes seconds or a duration with s, m or h', () => {
      assert.equal(compileOne('timeout: 90').timeout, 90);
      assert.equal(compileOne('timeout: 90s').timeout, 90);
      assert.equal(compileOne('timeout: 30m').timeout, 1800);
      assert.equal(compileOne('timeout: 2h').timeout, 7200);
      assert.equal(compileOne('timeout: 24h').timeout, 86_400);
      assert.equal(compileOne('timeout: 86400').timeout, 86_400);
      assert.equal(compileOne('timeout: 1440m').timeout, 86_400);
    });

    it('refuses zero, negatives, more than 24h, fractions and other spellings', () => {
      for (const value of ['0', '0s', '-5', '86401', '25h', '1441m', '99999999999999999999999h', '1.5', '"90"', '1d', '1h30m', '" 5m"', '5M', 'true', '[1]']) {
        assertOneProblem(withTask(`timeout: ${value}`), 'tasks.t.timeout', /./);
      }
      assertOneProblem(withTask('timeout: 0'), 'tasks.t.timeout', /must be positive/);
      assertOneProblem(withTask('timeout: 25h'), 'tasks.t.timeout', /at most 86400 seconds/);
      assertOneProblem(withTask('timeout: 1d'), 'tasks.t.timeout', /duration such as 90s, 30m or 2h, got "1d"/);
    });
  });

  describe('retries', () => {
    it('sets maxAttempts to retries + 1', () => {
      assert.equal(compileOne('retries: 0').maxAttempts, 1);
      assert.equal(compileOne('retries: 3').maxAttempts, 4);
      assert.equal(compileOne('retries: 10').maxAttempts, 11);
    });

    it('refuses values outside 0..10 and non-integers', () => {
      for (const value of ['-1', '11', '1.5', '"2"', 'true']) assertOneProblem(withTask(`retries: ${value}`), 'tasks.t.retries', /0 to 10/);
    });
  });

  describe('allow_failure', () => {
    it('takes a boolean', () => {
      assert.equal(compileOne('allow_failure: true').allowFailure, true);
      assert.equal(compileOne('allow_failure: false').allowFailure, false);
    });

    it('refuses anything else', () => {
      for (const value of ['yes', '"true"', '1', 'null']) {
        assertOneProblem(withTask(`allow_failure: ${value}`), 'tasks.t.allow_failure', /must be true or false/);
      }
    });
  });
});
