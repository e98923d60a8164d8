import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compilePipeline } from './compile.js';
import { locateProblems } from './locate-problems.js';

/** Compiles `source`, which must fail, and returns each problem as `line:column path`. */
function locate(source: string): string[] {
  const result = compilePipeline(source);
  assert.equal(result.ok, false, 'the file has problems');
  if (result.ok) return [];
  return locateProblems(source, result.problems).map((problem) => `${problem.line}:${problem.column} ${problem.path}`);
}

describe('locateProblems', () => {
  it('places each path at the key or list item it names', () => {
    const source = [
      'tasks:', //                                1
      '  build:', //                              2
      '    image: node:22', //                    3
      '    script: [npm ci]', //                  4
      '    timeout: -5', //                       5
      '    services:', //                         6
      '      - {name: db, image: postgres}', //   7
      '      - {name: db, image: redis}', //      8
      '  test:', //                               9
      '    image: node:22', //                    10
      '    script: npm test', //                  11
      '    needs: [build, nope]', //              12
      '    colour: red', //                       13
    ].join('\n');
    assert.deepEqual(locate(source), [
      '5:5 tasks.build.timeout',
      '8:10 tasks.build.services[1].name',
      '12:20 tasks.test.needs[1]',
      '13:5 tasks.test.colour',
    ]);
  });

  it('places a missing key at the map that lacks it, and follows task names that contain dots', () => {
    const source = 'tasks:\n  a.b:\n    image: x\n  a:\n    image: x\n    script: [echo]\n';
    assert.deepEqual(locate(source), ['2:3 tasks.a.b.script']);
  });

  it('uses the position a YAML error already carries', () => {
    assert.deepEqual(locate('tasks:\n  a: [\n'), ['3:1 ']);
    assert.deepEqual(locate('tasks:\n  a: 1\n  a: 2\n'), ['3:3 ']);
  });

  it('follows aliases to the node they name', () => {
    const source = 'x-base: &base\n  image: 5\n  script: [echo]\ntasks:\n  a: *base\n';
    assert.deepEqual(locate(source), ['1:1 x-base', '2:3 tasks.a.image']);
  });

  it('puts a problem of an empty file or a non-map at the start', () => {
    assert.deepEqual(locate(''), ['1:1 tasks']);
    assert.deepEqual(locate('\n\n- a\n'), ['3:1 ']);
  });
});
