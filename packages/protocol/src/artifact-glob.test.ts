import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGlob, findGlobFlaw } from './artifact-glob.js';

function match(pattern: string, path: string): boolean {
  const compiled = compileGlob(pattern);
  assert.ok(compiled.glob, `${pattern}: ${compiled.problem}`);
  return compiled.glob.test(path);
}

/** Pattern, path, expected: the shell's rules, with `**` spanning directories. */
const TABLE: [string, string, boolean][] = [
  ['*.txt', 'a.txt', true],
  ['*.txt', '.hidden.txt', true],
  ['*.txt', 'dir/a.txt', false],
  ['*', 'a', true],
  ['*', 'a/b', false],
  ['**/*.txt', 'a.txt', true],
  ['**/*.txt', 'x/y/a.txt', true],
  ['**/*.txt', 'x/y/a.txt/z', false],
  ['x/**/y', 'x/y', true],
  ['x/**/y', 'x/a/b/y', true],
  ['x/**/y', 'x/a/b/yy', false],
  ['dist/**', 'dist/a/b', true],
  ['dist/**', 'dist/a', true],
  ['dist/**', 'dist', false],
  ['**', 'anything/at/all', true],
  ['./out/file-?.[ch]', 'out/file-1.c', true],
  ['out/file-?.[ch]', 'out/file-12.c', false],
  ['out/file-?.[!ch]', 'out/file-1.c', false],
  ['out/file-?.[!ch]', 'out/file-1.o', true],
  ['out/file-?.[^ch]', 'out/file-1.o', true],
  ['[a-c]x', 'bx', true],
  ['[a-c]x', 'dx', false],
  ['[]]x', ']x', true],
  ['[!]]x', ']x', false],
  ['[a-]', '-', true],
  ['[[]x', '[x', true],
  ['a+b(1).txt', 'a+b(1).txt', true],
  ['a.txt', 'abtxt', false],
  ['a**b', 'axxb', true],
  ['a**b', 'ax/xb', false],
  ['*a*b', 'xaybzb', true],
  ['*a*b', 'xaybzbc', false],
  ['?', 'é', true],
  ['[é]', 'é', true],
  ['**/a?c/**/*.log', 'p/q/abc/r/s.log', true],
  ['**/a?c/**/*.log', 'p/q/abc/s.txt', false],
];

test('globs match like a shell, with ** spanning directories', () => {
  for (const [pattern, path, expected] of TABLE) assert.equal(match(pattern, path), expected, `${pattern} against ${path}`);
});

test('patterns outside the workdir are refused', () => {
  for (const pattern of ['../etc/passwd', '/etc/passwd', 'a/../../b', 'C:/x', '', '.']) {
    assert.match(compileGlob(pattern).problem ?? '', /outside the workdir/, pattern);
  }
});

test('a pathological pattern against a long name finishes at once (no backtracking blow-up)', () => {
  const name = 'a'.repeat(10_000);
  const started = process.hrtime.bigint();
  assert.equal(match('*a*a*a*a*a*a*a*a*a*a*b', name), false);
  assert.equal(match('**/*a*a*a*a*a*a*a*a*a*a*b', `x/y/${name}`), false);
  assert.equal(match('*a*a*a*a*a*a*a*a*a*a*a', name), true);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  assert.ok(ms < 200, `took ${ms} ms`);
});

test('absurd or malformed patterns are refused with a reason, not a crash', () => {
  const cases: [string, RegExp][] = [
    ['[z-a].txt', /range z-a .*start is after its end/],
    ['dist/[abc', /'\[' at position 6 without its closing '\]'/],
    ['[]', /without its closing/],
    ['*'.repeat(33), /has 33 '\*'; at most 32/],
    ['a'.repeat(1025), /1025 characters long; at most 1024/],
  ];
  for (const [pattern, message] of cases) {
    assert.match(findGlobFlaw(pattern) ?? '', message, pattern);
    assert.match(compileGlob(pattern).problem ?? '', message, pattern);
  }
  assert.equal(findGlobFlaw('coverage/**/[a-z]*.json'), undefined);
});
