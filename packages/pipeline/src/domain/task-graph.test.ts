import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TaskState } from '@conveyor/protocol';
import { deriveJobState, initialTaskState, settleBlockedTasks, tallyTasks, type GraphTask } from './task-graph.js';

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
