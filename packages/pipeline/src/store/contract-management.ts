// The store contract for managing jobs: the jobs list with its task counts, re-running a job's failed
// tasks, and what workers last offered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OpenStore } from './contract.js';
import { addJob, addProject, addWorker, compiledTask, filterFor, leaseFor, statesOf, T0, withStore } from './contract-fixtures.js';
import type { PipelineStore, Project, Task, Worker } from './types.js';

const failed = { success: false, exitCode: 1, error: null };
const succeeded = { success: true, exitCode: 0, error: null };

/** Claims and completes the next task with `outcome`, returning it. */
async function runNext(store: PipelineStore, worker: Worker, outcome: typeof failed, now: number): Promise<Task> {
  const task = await store.claimNextTask(filterFor(), leaseFor(worker, now));
  assert.ok(task !== null, 'a task is claimable');
  await store.completeTask(task.id, worker.id, outcome, now + 1);
  return task;
}

async function addNamedJob(store: PipelineStore, project: Project, ref: string, trigger: string, now: number) {
  return store.insertJob(
    { projectId: project.id, ref, headSha: 'b'.repeat(40), base: null, actor: 'alice', trigger, tasks: [compiledTask('a'), compiledTask('b', { needs: ['a'] })] },
    { jobId: `job-${now}`, taskIds: [`a-${now}`, `b-${now}`] },
    now,
  );
}

export function registerManagementContract(openStore: OpenStore): void {
  describe('jobs list', () => {
    it('lists newest first with task counts and first start, pages below a number, and filters', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'listed');
        const other = await addProject(store, 'other');
        const first = await addNamedJob(store, project, 'refs/heads/main', 'push', T0);
        await addNamedJob(store, project, 'refs/heads/dev', 'manual', T0 + 1);
        await addNamedJob(store, project, 'refs/heads/main', 'push', T0 + 2);
        await addNamedJob(store, other, 'refs/heads/main', 'push', T0 + 3);
        const { worker } = await addWorker(store, 'w');
        // The oldest job's first task runs and succeeds: its second waits.
        await runNext(store, worker, succeeded, T0 + 100);

        const all = await store.listJobs(project.id, {}, { beforeNumber: null, limit: 10 });
        assert.deepEqual(all.map((listing) => listing.job.number), [3, 2, 1]);
        const oldest = all[2];
        assert.equal(oldest?.job.id, first.id);
        assert.deepEqual(oldest?.taskCounts, { success: 1, waiting: 1 });
        assert.equal(oldest?.startedAt, T0 + 100);
        assert.deepEqual(all[0]?.taskCounts, { waiting: 1, blocked: 1 });
        assert.equal(all[0]?.startedAt, null);

        assert.deepEqual((await store.listJobs(project.id, {}, { beforeNumber: null, limit: 2 })).map((l) => l.job.number), [3, 2]);
        assert.deepEqual((await store.listJobs(project.id, {}, { beforeNumber: 2, limit: 2 })).map((l) => l.job.number), [1]);
        assert.deepEqual((await store.listJobs(project.id, { ref: 'refs/heads/main' }, { beforeNumber: null, limit: 10 })).map((l) => l.job.number), [3, 1]);
        assert.deepEqual((await store.listJobs(project.id, { trigger: 'manual' }, { beforeNumber: null, limit: 10 })).map((l) => l.job.number), [2]);
        assert.deepEqual((await store.listJobs(project.id, { state: 'success' }, { beforeNumber: null, limit: 10 })).length, 0);
        assert.deepEqual((await store.listJobs(project.id, { state: 'running', trigger: 'push' }, { beforeNumber: null, limit: 10 })).map((l) => l.job.number), [3, 1]);
      }));
  });

  describe('re-running failed tasks', () => {
    it('reopens the failure and its skipped dependents as new attempts, keeps the rest, and the job runs again', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'rerun');
        const job = await addJob(store, project, [
          compiledTask('lint'),
          compiledTask('build', { maxAttempts: 2 }),
          compiledTask('test', { needs: ['build'] }),
          compiledTask('package', { needs: ['test'] }),
          compiledTask('deploy', { needs: ['package', 'lint'] }),
        ]);
        const { worker } = await addWorker(store, 'w');
        await runNext(store, worker, succeeded, T0 + 10); // lint
        await runNext(store, worker, failed, T0 + 20); // build, attempt 1: requeued
        assert.equal((await store.rerunFailedTasks(job.id, T0 + 25)).kind, 'running', 'refused while the job runs');
        await runNext(store, worker, failed, T0 + 30); // build, attempt 2: failure; the rest skipped
        assert.deepEqual(await statesOf(store, job.id), { lint: 'success', build: 'failure', test: 'skipped', package: 'skipped', deploy: 'skipped' });
        assert.equal((await store.getJobById(job.id))?.state, 'failure');

        const result = await store.rerunFailedTasks(job.id, T0 + 40);
        assert.equal(result.kind, 'rerun');
        assert.equal(result.kind === 'rerun' && result.tasks, 4);
        assert.equal(result.kind === 'rerun' && result.workBecameAvailable, true);
        assert.deepEqual(await statesOf(store, job.id), { lint: 'success', build: 'waiting', test: 'blocked', package: 'blocked', deploy: 'blocked' });
        const reopened = await store.getJobById(job.id);
        assert.deepEqual([reopened?.state, reopened?.finishedAt], ['running', null]);
        const tasks = await store.listTasksOfJob(job.id);
        const build = tasks.find((task) => task.name === 'build');
        assert.deepEqual([build?.attempt, build?.maxAttempts], [2, 4], 'two more attempts: one run of retries');

        // The retry still applies: attempt 3 fails and is requeued, attempt 4 succeeds.
        assert.equal((await runNext(store, worker, failed, T0 + 50)).attempt, 3);
        assert.equal((await store.getTask(build?.id ?? ''))?.state, 'waiting');
        assert.equal((await runNext(store, worker, succeeded, T0 + 60)).attempt, 4);
        for (const name of ['test', 'package', 'deploy']) assert.equal((await runNext(store, worker, succeeded, T0 + 70)).name, name);
        const done = await store.getJobById(job.id);
        assert.deepEqual([done?.state, done?.finishedAt], ['success', T0 + 71]);
        assert.equal((await store.listTasksOfJob(job.id)).find((task) => task.name === 'lint')?.attempt, 1, 'lint did not run again');
      }));

    it('reopens a canceled job and clears its cancel flag; refuses a job with nothing failed', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'canceled');
        const job = await addJob(store, project, [compiledTask('a'), compiledTask('b', { needs: ['a'] })]);
        await store.cancelJob(job.id, T0 + 1);
        assert.equal((await store.getJobById(job.id))?.state, 'canceled');
        assert.equal((await store.rerunFailedTasks(job.id, T0 + 2)).kind, 'rerun');
        assert.deepEqual(await statesOf(store, job.id), { a: 'waiting', b: 'blocked' });
        const { worker } = await addWorker(store, 'w');
        await runNext(store, worker, succeeded, T0 + 3);
        await runNext(store, worker, succeeded, T0 + 4);
        assert.equal((await store.getJobById(job.id))?.state, 'success', 'the old cancel no longer counts');
        assert.equal((await store.rerunFailedTasks(job.id, T0 + 6)).kind, 'nothing');
        assert.equal((await store.rerunFailedTasks('no-such-job', T0 + 6)).kind, 'nothing');
        assert.deepEqual(await statesOf(store, job.id), { a: 'success', b: 'success' });
      }));
  });

  describe('worker offers', () => {
    it('lists what live workers that are not revoked last offered', () =>
      withStore(openStore, async (store) => {
        const { worker: shared } = await addWorker(store, 'shared');
        const { worker: owned } = await addWorker(store, 'owned', 'alice');
        const { worker: revoked } = await addWorker(store, 'revoked');
        await addWorker(store, 'silent');
        await store.recordWorkerOffer(shared.id, { arches: ['amd64'], features: ['docker'] }, T0);
        await store.recordWorkerOffer(owned.id, { arches: ['arm64'], features: [] }, T0 + 10_000);
        await store.recordWorkerOffer(revoked.id, { arches: ['amd64'], features: ['gpu'] }, T0 + 10_000);
        await store.revokeWorker(revoked.id, T0 + 10_001);
        const byOwner = (offers: Awaited<ReturnType<PipelineStore['listLiveWorkerOffers']>>) =>
          offers.map((offer) => ({ ...offer })).sort((a, b) => String(a.ownerUserId).localeCompare(String(b.ownerUserId)));
        assert.deepEqual(byOwner(await store.listLiveWorkerOffers(T0)), [
          { ownerUserId: 'alice', arches: ['arm64'], features: [] },
          { ownerUserId: null, arches: ['amd64'], features: ['docker'] },
        ]);
        assert.deepEqual(await store.listLiveWorkerOffers(T0 + 5_000), [{ ownerUserId: 'alice', arches: ['arm64'], features: [] }]);
        // A changed offer is recorded at once, however recently the worker was seen.
        await store.recordWorkerOffer(owned.id, { arches: ['arm64'], features: ['kvm'] }, T0 + 10_500);
        assert.deepEqual(await store.listLiveWorkerOffers(T0 + 5_000), [{ ownerUserId: 'alice', arches: ['arm64'], features: ['kvm'] }]);
        assert.equal((await store.findWorker(owned.id))?.lastSeenAt, T0 + 10_500);
      }));
  });
}
