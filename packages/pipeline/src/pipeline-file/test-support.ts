// Helpers shared by the pipeline-file tests.
import assert from 'node:assert/strict';
import { compilePipeline } from './compile.js';
import type { CompiledTask, Problem } from './types.js';

/** Compiles and asserts success. */
export function compileTasks(source: string): CompiledTask[] {
  const result = compilePipeline(source);
  if (!result.ok) assert.fail(`expected the file to compile, got ${JSON.stringify(result.problems, null, 2)}`);
  return result.tasks;
}

/** Compiles and asserts failure. */
export function compileProblems(source: string): Problem[] {
  const result = compilePipeline(source);
  if (result.ok) assert.fail(`expected problems, got ${result.tasks.length} tasks`);
  return result.problems;
}

/** Asserts exactly one problem, at `path`, whose message matches `message`. */
export function assertOneProblem(source: string, path: string, message: RegExp): void {
  const problems = compileProblems(source);
  assert.equal(problems.length, 1, `expected one problem, got ${JSON.stringify(problems, null, 2)}`);
  assert.equal(problems[0]?.path, path);
  assert.match(problems[0]?.message ?? '', message);
}

/** Asserts the problems are at exactly these paths, in this order. */
export function assertProblemPaths(source: string, paths: string[]): Problem[] {
  const problems = compileProblems(source);
  assert.deepEqual(problems.map((problem) => problem.path), paths, JSON.stringify(problems, null, 2));
  return problems;
}

/** A file with one task `t` (image and script given) plus the extra lines, indented as task keys. */
export function withTask(...lines: string[]): string {
  return ['tasks:', '  t:', '    image: alpine:3', '    script: [make]', ...lines.map((line) => `    ${line}`)].join('\n');
}
