import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ALIAS_COUNT, MAX_YAML_NESTING } from './limits.js';
import { assertOneProblem, compileProblems, compileTasks } from './test-support.js';
import { MAX_PIPELINE_FILE_BYTES } from './types.js';

/** Pads a valid file with a comment so it is exactly `bytes` long in UTF-8, using a multi-byte character. */
function padToBytes(bytes: number): string {
  const head = 'tasks: {t: {image: a, script: b}}\n#';
  // "é" is two bytes in UTF-8 but one UTF-16 unit, so a check on string length would be fooled.
  const room = bytes - Buffer.byteLength(head) - 1;
  return `${head}${'é'.repeat(Math.floor(room / 2))}${room % 2 === 1 ? 'x' : ''}\n`;
}

describe('YAML parsing', () => {
  it('reports a syntax error with its line and column', () => {
    const problems = compileProblems('tasks:\n  a:\n    script: [make\n    image: x\n');
    assert.ok(problems.length >= 1);
    assert.equal(problems[0]?.path, '');
    assert.match(problems[0]?.message ?? '', /^YAML syntax error at line \d+, column \d+: /);
  });

  it('places the error on the line and column where it is', () => {
    assertOneProblem('tasks:\n  a:\n    script: x\n\tbad: 1\n', '', /^YAML syntax error at line 4, column 1: Tabs are not allowed/);
  });

  it('refuses duplicate keys, also a number key and a quoted one with the same text', () => {
    assertOneProblem('tasks:\n  a: {image: x, script: y}\n  a: {image: x, script: y}\n', '', /line 3, column 3: duplicate key "a"/);
    assertOneProblem('tasks:\n  1: {image: x, script: y}\n  "1": {image: x, script: y}\n', '', /line 3, column 3: duplicate key "1"/);
  });

  it('reports every YAML problem, in file order', () => {
    const problems = compileProblems('tasks:\n  a: {image: x, script: y, image: z}\n  a: 1\n');
    assert.deepEqual(problems.map((problem) => problem.message.replace(/:.*/, '')), [
      'YAML syntax error at line 2, column 28',
      'YAML syntax error at line 3, column 3',
    ]);
  });

  it('refuses a second document in the file', () => {
    assertOneProblem('tasks: {a: {image: x, script: y}}\n---\ntasks: {}\n', '', /line 2, column 1: .*single YAML document/);
  });

  it('reads keys as text, so numeric-looking task names keep their spelling', () => {
    assert.deepEqual(compileTasks('image: x\ntasks:\n  010: {script: y}\n  1.50: {script: y}\n').map((task) => task.name), ['010', '1.50']);
  });

  it('keeps the YAML 1.2 core schema even under a %YAML 1.1 directive', () => {
    const [task] = compileTasks('%YAML 1.1\n---\nimage: x\ntasks:\n  t: {script: y, env: {A: yes, B: 0o17}}\n');
    assert.deepEqual(task?.env, { A: 'yes', B: '15' });
    assertOneProblem('%YAML 1.1\n---\nimage: x\ntasks:\n  t: {script: y, allow_failure: yes}\n', 'tasks.t.allow_failure', /must be true or false, got a string/);
  });

  it('refuses YAML 1.1 types and unknown tags rather than guessing', () => {
    assertOneProblem('image: x\ntasks:\n  t: {script: !!binary aGVsbG8=}\n', '', /^unsupported YAML at line 3, column 15: Unresolved tag/);
    assertOneProblem('image: x\ntasks:\n  t: {script: !shell make}\n', '', /^unsupported YAML at line 3, column 15: Unresolved tag: !shell/);
  });

  it('accepts anchors and aliases used a reasonable number of times', () => {
    const tasks = compileTasks('image: x\ntasks:\n  a: {script: &build [make, make test], env: &env {A: "1"}}\n  b: {script: *build, env: *env}\n');
    assert.deepEqual(tasks[1]?.script, ['make', 'make test']);
    assert.deepEqual(tasks[1]?.env, { A: '1' });
  });

  it('refuses an alias whose anchor is missing', () => {
    assertOneProblem('image: x\ntasks:\n  a: {script: *nowhere}\n', '', /alias/i);
  });

  it('refuses the billion laughs alias bomb quickly', () => {
    const lines = ['lol0: &lol0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]'];
    for (let level = 1; level <= 9; level++) {
      lines.push(`lol${level}: &lol${level} [${Array.from({ length: 9 }, () => `*lol${level - 1}`).join(', ')}]`);
    }
    lines.push('tasks: {t: {image: x, script: *lol9}}');
    const source = lines.join('\n');
    assertOneProblem(source, '', /aliases expand the file to \d+ values/);
  });

  it('refuses one large anchor expanded many times', () => {
    const list = Array.from({ length: 20_000 }, () => 'a').join(',');
    const tasks = Array.from({ length: 60 }, (_, i) => `  t${i}: {image: x, script: *big}`).join('\n');
    assertOneProblem(`big: &big [${list}]\ntasks:\n${tasks}\n`, '', /aliases expand the file to 12\d{5} values; at most 1000000/);
  });

  it(`refuses an anchor used more than ${MAX_ALIAS_COUNT} times (the yaml library's maxAliasCount)`, () => {
    const tasks = Array.from({ length: MAX_ALIAS_COUNT + 1 }, (_, i) => `  t${i}: {image: x, script: *s}`).join('\n');
    assertOneProblem(`s: &s [make]\ntasks:\n${tasks}\n`, '', /too many alias expansions/);
  });

  it('refuses a recursive structure', () => {
    assertOneProblem('image: x\ntasks:\n  t: &t {script: y, env: *t}\n', '', /endless structure/);
  });

  it(`refuses nesting deeper than ${MAX_YAML_NESTING} levels quickly, even a whole MiB of it`, () => {
    const flow = '['.repeat(MAX_PIPELINE_FILE_BYTES);
    assertOneProblem(flow, '', /^YAML nesting too deep at line 1, column \d+: more than 64 levels/);
    const block = '- '.repeat(MAX_PIPELINE_FILE_BYTES / 2);
    assertOneProblem(block, '', /^YAML nesting too deep/);
  });

  it('accepts the nesting a pipeline file needs', () => {
    const source = 'tasks:\n  t:\n    image: x\n    script: [y]\n    services:\n      - name: db\n        image: pg\n        env:\n          A: "1"\n';
    assert.deepEqual(compileTasks(source)[0]?.services[0]?.env, { A: '1' });
  });
});

describe('file size', () => {
  it('accepts a file of exactly 1 MiB', () => {
    const source = padToBytes(MAX_PIPELINE_FILE_BYTES);
    assert.equal(Buffer.byteLength(source), MAX_PIPELINE_FILE_BYTES);
    assert.equal(compileTasks(source).length, 1);
  });

  it('refuses a file one byte over 1 MiB, counting UTF-8 bytes, before parsing it', () => {
    const source = padToBytes(MAX_PIPELINE_FILE_BYTES + 1);
    assert.equal(Buffer.byteLength(source), MAX_PIPELINE_FILE_BYTES + 1);
    assert.ok(source.length < MAX_PIPELINE_FILE_BYTES, 'the string itself is shorter than the limit');
    assertOneProblem(source, '', /larger than 1048576 bytes/);
  });

  it('refuses a huge file without parsing it (a syntax error would otherwise be reported)', () => {
    const source = `tasks: [[[\n${'x'.repeat(8 * MAX_PIPELINE_FILE_BYTES)}`;
    assertOneProblem(source, '', /larger than 1048576 bytes/);
  });
});
