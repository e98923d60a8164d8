import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SigninError } from './errors.js';
import { createHashQueue } from './hash-queue.js';

/** A task that finishes when told to. */
function deferred(): { promise: Promise<void>; finish: () => void } {
  let finish = () => {};
  const promise = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { promise, finish };
}

describe('hashing queue', () => {
  it('runs at most `concurrency` tasks, queues up to `maxPending`, and refuses the next with 503 busy', async () => {
    const queue = createHashQueue({ concurrency: 2, maxPending: 1 });
    const tasks = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = tasks.map((task, i) =>
      queue.run(async () => {
        started.push(i);
        await task.promise;
        return i;
      }),
    );
    await Promise.resolve();
    assert.deepEqual(started, [0, 1]);
    assert.equal(queue.running, 2);
    assert.equal(queue.waiting, 1);
    await assert.rejects(
      queue.run(async () => 'too many'),
      (error) => error instanceof SigninError && error.status === 503 && error.code === 'busy' && error.retryAfterSeconds === 1,
    );
    tasks[0]?.finish();
    assert.equal(await runs[0], 0);
    assert.deepEqual(started, [0, 1, 2]);
    tasks[1]?.finish();
    tasks[2]?.finish();
    assert.deepEqual(await Promise.all(runs), [0, 1, 2]);
    assert.equal(queue.running, 0);
    assert.equal(queue.waiting, 0);
  });

  it('frees the slot when a task fails', async () => {
    const queue = createHashQueue({ concurrency: 1, maxPending: 0 });
    await assert.rejects(queue.run(async () => Promise.reject(new Error('argon2 failed'))));
    assert.equal(await queue.run(async () => 'next'), 'next');
  });
});
