import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskState } from '@conveyor/protocol';
import { planFailedRerun, type RerunCandidate } from './rerun.js';

const task = (name: string, state: TaskState, needs: string[] = [], attempt = 1, attemptsPerRun = 1): RerunCandidate => ({
  id: `id-${name}`,
  name,
  state,
  needs,
  attempt,
  attemptsPerRun,
});

describe('planFailedRerun', () => {
  it('re-runs a failure and its skipped dependents, transitively; the failure waits, the rest are blocked', () => {
    const plan = planFailedRerun([
      task('lint', 'success'),
      task('build', 'failure', ['lint']),
      task('test', 'skipped', ['build'], 0),
      task('package', 'skipped', ['test'], 0),
      task('deploy', 'skipped', ['package', 'lint'], 0),
    ]);
    assert.deepEqual(Object.fromEntries(plan), {
      'id-build': { state: 'waiting', maxAttempts: 2 },
      'id-test': { state: 'blocked', maxAttempts: 1 },
      'id-package': { state: 'blocked', maxAttempts: 1 },
      'id-deploy': { state: 'blocked', maxAttempts: 1 },
    });
  });

  it('keeps the results of every other task, including successes downstream of an allowed failure', () => {
    const plan = planFailedRerun([task('flaky', 'failure'), task('after', 'success', ['flaky']), task('other', 'success')]);
    assert.deepEqual([...plan.keys()], ['id-flaky']);
  });

  it('re-runs canceled tasks, including ones that never ran', () => {
    const plan = planFailedRerun([task('a', 'success'), task('b', 'canceled', ['a'], 0), task('c', 'canceled', ['b'], 0)]);
    assert.deepEqual(Object.fromEntries(plan), {
      'id-b': { state: 'waiting', maxAttempts: 1 },
      'id-c': { state: 'blocked', maxAttempts: 1 },
    });
  });

  it('extends the attempt limit by one run of retries, each time', () => {
    // Three attempts used of three (retries: 2): the re-run gets three more, up to 6; after that, up to 9.
    assert.deepEqual(planFailedRerun([task('a', 'failure', [], 3, 3)]).get('id-a'), { state: 'waiting', maxAttempts: 6 });
    assert.deepEqual(planFailedRerun([task('a', 'failure', [], 6, 3)]).get('id-a'), { state: 'waiting', maxAttempts: 9 });
  });

  it('plans nothing for a job without failed or canceled tasks', () => {
    assert.equal(planFailedRerun([task('a', 'success'), task('b', 'success', ['a'])]).size, 0);
    assert.equal(planFailedRerun([]).size, 0);
  });
});
