import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskState } from '@conveyor/protocol';
import {
  deriveJobState,
  hasAttemptsLeft,
  initialTaskState,
  lapsedOutcome,
  nextStateAfterOutcome,
  settleBlockedTasks,
  stateOnCancel,
  tallyTasks,
  type GraphTask,
} from './task-graph.js';

const task = (name: string, state: TaskState, needs: string[] = [], allowFailure = false): GraphTask => ({ id: name, name, state, needs, allowFailure });

describe('settleBlockedTasks', () => {
  it('unblocks a task once every need succeeded', () => {
    const changes = settleBlockedTasks([task('a', 'success'), task('b', 'running'), task('c', 'blocked', ['a', 'b'])]);
    assert.deepEqual([...changes], []);
    assert.deepEqual([...settleBlockedTasks([task('a', 'success'), task('b', 'success'), task('c', 'blocked', ['a', 'b'])])], [['c', 'waiting']]);
  });

  it('counts a failure with allow_failure as a met need', () => {
    assert.deepEqual([...settleBlockedTasks([task('a', 'failure', [], true), task('b', 'blocked', ['a'])])], [['b', 'waiting']]);
  });

  it('skips everything downstream of a failure, a skip or a cancel, transitively', () => {
    const changes = settleBlockedTasks([
      task('a', 'failure'),
      task('b', 'blocked', ['a']),
      task('c', 'blocked', ['b']),
      task('d', 'blocked', ['x']),
      task('x', 'canceled'),
      task('e', 'blocked', ['ok']),
      task('ok', 'success'),
    ]);
    assert.deepEqual(Object.fromEntries(changes), { b: 'skipped', c: 'skipped', d: 'skipped', e: 'waiting' });
  });

  it('skips rather than waits when one need broke and another is still running', () => {
    assert.deepEqual([...settleBlockedTasks([task('a', 'failure'), task('r', 'running'), task('b', 'blocked', ['a', 'r'])])], [['b', 'skipped']]);
  });
});

describe('deriveJobState', () => {
  const states = (...list: [TaskState, boolean?][]) => tallyTasks(list.map(([state, allowFailure = false]) => ({ state, allowFailure })));
  it('is running until every task is final', () => {
    assert.equal(deriveJobState(states(['success'], ['waiting']), false), 'running');
    assert.equal(deriveJobState(states(['success'], ['blocked']), false), 'running');
    assert.equal(deriveJobState(states(['running']), true), 'running');
  });
  it('is success, failure or canceled once final', () => {
    assert.equal(deriveJobState(states(['success'], ['failure', true]), false), 'success');
    assert.equal(deriveJobState(states(['success'], ['failure']), false), 'failure');
    assert.equal(deriveJobState(states(['failure'], ['skipped']), false), 'failure');
    assert.equal(deriveJobState(states(['success'], ['canceled']), false), 'canceled');
    assert.equal(deriveJobState(states(['success']), true), 'canceled');
  });
});

describe('initialTaskState', () => {
  it('starts tasks without needs as waiting and the others as blocked', () => {
    assert.equal(initialTaskState([]), 'waiting');
    assert.equal(initialTaskState(['a']), 'blocked');
  });
});

describe('tallyTasks', () => {
  it('counts groups by their size, as a store counting with GROUP BY hands them over', () => {
    const tally = tallyTasks([
      { state: 'success', allowFailure: false, count: 240 },
      { state: 'failure', allowFailure: true, count: 3 },
      { state: 'failure', allowFailure: false, count: 2 },
      { state: 'skipped', allowFailure: false, count: 4 },
      { state: 'canceled', allowFailure: false, count: 1 },
      { state: 'running', allowFailure: false, count: 5 },
      { state: 'blocked', allowFailure: true, count: 6 },
    ]);
    assert.deepEqual(tally, { open: 11, canceled: 1, failed: 6 });
  });
});

describe('after an attempt ends', () => {
  const held = (attempt: number, maxAttempts: number) => ({ attempt, maxAttempts });
  it('requeues a failure while attempts remain, and fails it on the last', () => {
    assert.equal(hasAttemptsLeft(held(1, 2)), true);
    assert.equal(hasAttemptsLeft(held(2, 2)), false);
    assert.equal(nextStateAfterOutcome(held(1, 2), { success: false }, false), 'waiting');
    assert.equal(nextStateAfterOutcome(held(2, 2), { success: false }, false), 'failure');
  });
  it('records a success as it is, even in a canceled job', () => {
    assert.equal(nextStateAfterOutcome(held(1, 3), { success: true }, false), 'success');
    assert.equal(nextStateAfterOutcome(held(1, 3), { success: true }, true), 'success');
  });
  it('never requeues a failure in a canceled job', () => {
    assert.equal(nextStateAfterOutcome(held(1, 3), { success: false }, true), 'canceled');
  });
});

describe('lapsedOutcome', () => {
  it('is a timeout once the deadline passed, even if the lease lapsed too', () => {
    assert.deepEqual(lapsedOutcome({ leaseExpiresAt: 100, deadlineAt: 100 }, 100), { success: false, exitCode: null, error: 'timeout' });
  });
  it('is worker lost when only the lease lapsed', () => {
    assert.deepEqual(lapsedOutcome({ leaseExpiresAt: 100, deadlineAt: 500 }, 100), { success: false, exitCode: null, error: 'worker lost' });
  });
  it('is nothing while both are in the future', () => {
    assert.equal(lapsedOutcome({ leaseExpiresAt: 101, deadlineAt: 500 }, 100), null);
    assert.equal(lapsedOutcome({ leaseExpiresAt: null, deadlineAt: null }, 100), null);
  });
});

describe('stateOnCancel', () => {
  it('cancels what was not handed out, lets running tasks report, keeps final states', () => {
    const all: TaskState[] = ['blocked', 'waiting', 'running', 'success', 'failure', 'skipped', 'canceled'];
    assert.deepEqual(
      all.map(stateOnCancel),
      ['canceled', 'canceled', 'running', 'success', 'failure', 'skipped', 'canceled'],
    );
  });
});
