// The store contract for scheduling: claims and their filters, the races, completion, reaping,
// cancellation and the log size compare-and-set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OpenStore } from './contract.js';
import {
  addJob,
  addProject,
  addWorker,
  compiledTask,
  filterFor,
  GRACE_MS,
  LEASE_MS,
  leaseFor,
  statesOf,
  T0,
  withStore,
} from './contract-fixtures.js';
import type { Task } from './types.js';

const failed = { success: false, exitCode: 1, error: null };
const succeeded = { success: true, exitCode: 0, error: null };

export function registerSchedulingContract(openStore: OpenStore): void {
  describe('claims', () => {
    it('hands out the oldest job first, in file order, with a lease and a deadline', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'order');
        const older = await addJob(store, project, [compiledTask('one', { timeout: 60 }), compiledTask('two')]);
        await addJob(store, project, [compiledTask('three')], T0 + 1);
        const { worker } = await addWorker(store, 'w');
        const claimed: Task[] = [];
        for (let i = 0; i < 3; i += 1) {
          const task = await store.claimNextTask(filterFor(), leaseFor(worker, T0 + 100));
          assert.ok(task !== null);
          claimed.push(task);
        }
        assert.deepEqual(claimed.map((task) => task.name), ['one', 'two', 'three']);
        const [one] = claimed as [Task];
        assert.equal(one.jobId, older.id);
        assert.deepEqual(
          [one.state, one.attempt, one.workerId, one.workerName, one.startedAt, one.leaseExpiresAt, one.deadlineAt, one.logSize],
          ['running', 1, worker.id, 'w', T0 + 100, T0 + 100 + LEASE_MS, T0 + 100 + 60_000 + GRACE_MS, 0],
        );
        assert.equal(await store.claimNextTask(filterFor(), leaseFor(worker)), null);
      }));

    it('hands a task only to a worker with its arch, every feature it requires, and (when owned) its owner', () =>
      withStore(openStore, async (store) => {
        const mine = await addProject(store, 'mine', 'alice');
        const theirs = await addProject(store, 'theirs', 'bob');
        await addJob(store, theirs, [compiledTask('bobs')]);
        await addJob(store, mine, [compiledTask('arm', { arch: 'arm64' }), compiledTask('gpu', { requires: ['gpu', 'docker'] })]);
        const { worker } = await addWorker(store, 'alices', 'alice');
        const alice = (extra: object) => store.claimNextTask(filterFor({ ownerUserId: 'alice', ...extra }), leaseFor(worker));
        assert.equal(await alice({}), null, "bob's task and the arm64 and gpu tasks are not for this worker");
        assert.equal(await alice({ features: ['gpu'] }), null, 'every required feature is needed');
        assert.equal((await alice({ features: ['docker', 'gpu', 'kvm'] }))?.name, 'gpu');
        assert.equal((await alice({ arches: ['arm64', 'amd64'] }))?.name, 'arm');
        const { worker: shared } = await addWorker(store, 'shared');
        assert.equal((await store.claimNextTask(filterFor(), leaseFor(shared)))?.name, 'bobs', 'a shared worker serves every project');
      }));

    it('hands each task out exactly once to 32 concurrent claimers', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'race');
        const job = await addJob(store, project, Array.from({ length: 20 }, (_, index) => compiledTask(`t${index}`)));
        const workers = await Promise.all(Array.from({ length: 32 }, (_, index) => addWorker(store, `claimer-${index}`)));
        const claims = await Promise.all(workers.map(({ worker }) => store.claimNextTask(filterFor(), leaseFor(worker))));
        const handed = claims.filter((task): task is Task => task !== null);
        assert.equal(handed.length, 20);
        assert.equal(new Set(handed.map((task) => task.id)).size, 20, 'no task handed out twice');
        const stored = await store.listTasksOfJob(job.id);
        for (const task of handed) {
          const row = stored.find((candidate) => candidate.id === task.id);
          assert.equal(row?.workerId, task.workerId, 'the stored holder is the claimer that got it');
          assert.equal(row?.attempt, 1);
        }
      }));

    it('extends the lease of a held task only, and says when the job was canceled', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'lease');
        const job = await addJob(store, project, [compiledTask('a')]);
        const { worker } = await addWorker(store, 'holder');
        const { worker: other } = await addWorker(store, 'other');
        const task = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(task !== null);
        assert.deepEqual(await store.extendLease(task.id, worker.id, LEASE_MS, T0 + 5_000), { cancel: false });
        assert.equal((await store.getTask(task.id))?.leaseExpiresAt, T0 + 5_000 + LEASE_MS);
        assert.equal(await store.extendLease(task.id, other.id, LEASE_MS, T0 + 6_000), null);
        assert.equal((await store.getTask(task.id))?.leaseExpiresAt, T0 + 5_000 + LEASE_MS, 'unchanged');
        await store.cancelJob(job.id, T0 + 7_000);
        assert.deepEqual(await store.extendLease(task.id, worker.id, LEASE_MS, T0 + 8_000), { cancel: true });
      }));
  });

  describe('completion', () => {
    it('records success, unblocks dependents and settles the job once every task is final', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'graph');
        const job = await addJob(store, project, [compiledTask('build'), compiledTask('test', { needs: ['build'] })]);
        const { worker } = await addWorker(store, 'w');
        const build = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(build !== null);
        const done = await store.completeTask(build.id, worker.id, succeeded, T0 + 10);
        assert.equal(done?.task.state, 'success');
        assert.equal(done?.task.finishedAt, T0 + 10);
        assert.equal(done?.workBecameAvailable, true);
        assert.equal(await store.completeTask(build.id, worker.id, failed, T0 + 11), null, 'a second report changes nothing');
        const test = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.equal(test?.name, 'test');
        await store.completeTask(test?.id ?? '', worker.id, succeeded, T0 + 20);
        const settled = await store.getJobById(job.id);
        assert.deepEqual([settled?.state, settled?.finishedAt], ['success', T0 + 20]);
      }));

    it('requeues a failure while attempts remain, then fails it and skips its dependents', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'retry');
        const job = await addJob(store, project, [compiledTask('flaky', { maxAttempts: 2 }), compiledTask('after', { needs: ['flaky'] })]);
        const { worker } = await addWorker(store, 'w');
        const first = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(first !== null);
        const requeued = await store.completeTask(first.id, worker.id, failed, T0 + 1);
        assert.deepEqual([requeued?.task.state, requeued?.task.workerId, requeued?.workBecameAvailable], ['waiting', null, true]);
        const second = await store.claimNextTask(filterFor(), leaseFor(worker, T0 + 2));
        assert.deepEqual([second?.id, second?.attempt], [first.id, 2]);
        const last = await store.completeTask(first.id, worker.id, { success: false, exitCode: 2, error: null }, T0 + 3);
        assert.deepEqual([last?.task.state, last?.task.exitCode], ['failure', 2]);
        assert.deepEqual(await statesOf(store, job.id), { flaky: 'failure', after: 'skipped' });
        assert.equal((await store.getJobById(job.id))?.state, 'failure');
      }));

    it('counts a failure with allow_failure as met, and the job as a success', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'allowed');
        const job = await addJob(store, project, [compiledTask('lint', { allowFailure: true }), compiledTask('ship', { needs: ['lint'] })]);
        const { worker } = await addWorker(store, 'w');
        const lint = await store.claimNextTask(filterFor(), leaseFor(worker));
        await store.completeTask(lint?.id ?? '', worker.id, failed, T0 + 1);
        const ship = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.equal(ship?.name, 'ship');
        await store.completeTask(ship?.id ?? '', worker.id, succeeded, T0 + 2);
        assert.equal((await store.getJobById(job.id))?.state, 'success');
      }));
  });

  describe('cancellation', () => {
    it('cancels tasks not handed out, lets the running one report, and never requeues it', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'cancel');
        const job = await addJob(store, project, [
          compiledTask('running', { maxAttempts: 3 }),
          compiledTask('waiting'),
          compiledTask('blocked', { needs: ['running'] }),
        ]);
        const { worker } = await addWorker(store, 'w');
        const running = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(running !== null);
        const canceled = await store.cancelJob(job.id, T0 + 5);
        assert.deepEqual([canceled.state, canceled.cancelRequested], ['running', true]);
        assert.deepEqual(await statesOf(store, job.id), { running: 'running', waiting: 'canceled', blocked: 'canceled' });
        assert.equal(await store.claimNextTask(filterFor(), leaseFor(worker)), null);
        const reported = await store.completeTask(running.id, worker.id, failed, T0 + 6);
        assert.equal(reported?.task.state, 'canceled', 'attempts remained, but a canceled job is not retried');
        const settled = await store.getJobById(job.id);
        assert.deepEqual([settled?.state, settled?.finishedAt], ['canceled', T0 + 6]);
      }));
  });

  describe('reaping', () => {
    it('requeues a task whose lease lapsed while attempts remain, then fails it as worker lost', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'lost');
        const job = await addJob(store, project, [compiledTask('a', { maxAttempts: 2 })]);
        const { worker } = await addWorker(store, 'w');
        await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.deepEqual(await store.reapExpiredTasks(T0 + LEASE_MS - 1), [], 'nothing lapsed yet');
        const first = await store.reapExpiredTasks(T0 + LEASE_MS);
        assert.deepEqual(first.map((t) => [t.task.state, t.task.error, t.workBecameAvailable]), [['waiting', 'worker lost', true]]);
        assert.deepEqual(await store.reapExpiredTasks(T0 + LEASE_MS), [], 'a task is reaped once');
        const again = await store.claimNextTask(filterFor(), leaseFor(worker, T0 + LEASE_MS + 1));
        assert.equal(again?.attempt, 2);
        const second = await store.reapExpiredTasks(T0 + 2 * LEASE_MS + 1);
        assert.deepEqual(second.map((t) => [t.task.state, t.task.error, t.workBecameAvailable]), [['failure', 'worker lost', false]]);
        assert.equal((await store.getJobById(job.id))?.state, 'failure');
      }));

    it('fails a task past its deadline as a timeout even while its lease is extended', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'slow');
        await addJob(store, project, [compiledTask('a', { timeout: 10 })]);
        const { worker } = await addWorker(store, 'w');
        const task = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(task !== null);
        await store.extendLease(task.id, worker.id, LEASE_MS, T0 + 15_000);
        const reaped = await store.reapExpiredTasks(T0 + 10_000 + GRACE_MS);
        assert.deepEqual(reaped.map((t) => [t.task.id, t.task.state, t.task.error]), [[task.id, 'failure', 'timeout']]);
        assert.equal(await store.completeTask(task.id, worker.id, succeeded, T0 + 20_001), null, 'a late report changes nothing');
      }));

    it('lets a completion and a concurrent reap settle a task exactly once', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'both');
        const job = await addJob(store, project, [compiledTask('a')]);
        const { worker } = await addWorker(store, 'w');
        const task = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(task !== null);
        const [completed, reaped] = await Promise.all([
          store.completeTask(task.id, worker.id, succeeded, T0 + LEASE_MS),
          store.reapExpiredTasks(T0 + LEASE_MS),
        ]);
        assert.equal((completed === null ? 0 : 1) + reaped.length, 1);
        const final = await store.getTask(task.id);
        assert.equal(final?.state, completed === null ? 'failure' : 'success');
        assert.equal((await store.getJobById(job.id))?.state, final?.state);
      }));
  });

  describe('log size compare-and-set', () => {
    it('moves the size only for the holder at its attempt, from the size it read', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'logs');
        await addJob(store, project, [compiledTask('a', { maxAttempts: 2 })]);
        const { worker } = await addWorker(store, 'w');
        const { worker: other } = await addWorker(store, 'other');
        const task = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(task !== null);
        assert.equal(await store.setLogSize(task.id, worker.id, 1, 0, 100), true);
        assert.equal(await store.setLogSize(task.id, worker.id, 1, 0, 50), false, 'a stale expected size');
        assert.equal(await store.setLogSize(task.id, other.id, 1, 100, 150), false, 'another worker');
        assert.equal(await store.setLogSize(task.id, worker.id, 2, 100, 150), false, 'an attempt not yet begun');
        assert.equal((await store.getTask(task.id))?.logSize, 100);
        await store.completeTask(task.id, worker.id, failed, T0 + 1);
        const retry = await store.claimNextTask(filterFor(), leaseFor(other, T0 + 2));
        assert.deepEqual([retry?.attempt, retry?.logSize], [2, 0], 'a new attempt starts a new log');
        assert.equal(await store.setLogSize(task.id, worker.id, 1, 0, 10), false, 'the old attempt is stale');
        assert.equal(await store.setLogSize(task.id, other.id, 2, 0, 10), true);
      }));

    it('lets exactly one of concurrent appends from one size through', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'cas');
        await addJob(store, project, [compiledTask('a')]);
        const { worker } = await addWorker(store, 'w');
        const task = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.ok(task !== null);
        const results = await Promise.all(Array.from({ length: 8 }, (_, index) => store.setLogSize(task.id, worker.id, 1, 0, 10 + index)));
        assert.equal(results.filter(Boolean).length, 1);
        assert.equal((await store.getTask(task.id))?.logSize, 10 + results.indexOf(true));
      }));
  });
}
