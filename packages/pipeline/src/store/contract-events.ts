// The store contract for job events: every job creation, job state change, task creation and task state
// or attempt change is recorded once, in order, by the transition itself.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OpenStore } from './contract.js';
import { addJob, addProject, addWorker, compiledTask, filterFor, LEASE_MS, leaseFor, T0, withStore } from './contract-fixtures.js';
import type { JobEvent, PipelineStore } from './types.js';

function describeEvent(event: JobEvent): string {
  return event.kind === 'job' ? `job ${event.state}` : `${event.name} ${event.state} #${event.attempt}`;
}

async function eventsOf(store: PipelineStore, jobId: string, after = 0): Promise<string[]> {
  return (await store.listJobEvents(jobId, after, 1000)).map(describeEvent);
}

export function registerEventContract(openStore: OpenStore): void {
  describe('job events', () => {
    it('records creation, claims, completions, unblocking and the outcome, in order, once each', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'events');
        const job = await addJob(store, project, [compiledTask('build'), compiledTask('test', { needs: ['build'] })]);
        const { worker } = await addWorker(store, 'w');
        assert.deepEqual(await eventsOf(store, job.id), ['job running', 'build waiting #0', 'test blocked #0']);
        const build = await store.claimNextTask(filterFor(), leaseFor(worker, T0 + 1));
        assert.ok(build !== null);
        // Heartbeats and log appends are not state changes.
        await store.extendLease(build.id, worker.id, LEASE_MS, T0 + 2);
        await store.setLogSize(build.id, worker.id, 1, 0, 10);
        await store.completeTask(build.id, worker.id, { success: true, exitCode: 0, error: null }, T0 + 3);
        const test = await store.claimNextTask(filterFor(), leaseFor(worker, T0 + 4));
        assert.ok(test !== null);
        await store.completeTask(test.id, worker.id, { success: false, exitCode: 2, error: null }, T0 + 5);
        assert.deepEqual(await eventsOf(store, job.id), [
          'job running',
          'build waiting #0',
          'test blocked #0',
          'build running #1',
          'build success #1',
          'test waiting #0',
          'test running #1',
          'test failure #1',
          'job failure',
        ]);
        const events = await store.listJobEvents(job.id, 0, 1000);
        const failedTest = events.find((event) => event.kind === 'task' && event.state === 'failure');
        assert.deepEqual(failedTest, {
          kind: 'task', seq: failedTest?.seq, jobId: job.id, taskId: test.id, name: 'test', state: 'failure',
          attempt: 1, exitCode: 2, startedAt: T0 + 4, finishedAt: T0 + 5,
        });
        const last = events.at(-1);
        assert.ok(last?.kind === 'job');
        assert.deepEqual([last.job.id, last.job.number, last.state, last.finishedAt], [job.id, 1, 'failure', T0 + 5]);
      }));

    it('resumes after any seq without losing or repeating, in pages, and keeps jobs apart', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'resume');
        const job = await addJob(store, project, [compiledTask('a'), compiledTask('b'), compiledTask('c')]);
        const other = await addJob(store, project, [compiledTask('x')]);
        await store.cancelJob(job.id, T0 + 1);
        const all = await store.listJobEvents(job.id, 0, 1000);
        assert.deepEqual(all.map(describeEvent), ['job running', 'a waiting #0', 'b waiting #0', 'c waiting #0', 'a canceled #0', 'b canceled #0', 'c canceled #0', 'job canceled']);
        const seqs = all.map((event) => event.seq);
        assert.deepEqual(seqs, [...seqs].sort((x, y) => x - y));
        const paged: number[] = [];
        let after = 0;
        for (;;) {
          const page = await store.listJobEvents(job.id, after, 3);
          if (page.length === 0) break;
          paged.push(...page.map((event) => event.seq));
          after = page.at(-1)?.seq ?? after;
        }
        assert.deepEqual(paged, seqs);
        assert.deepEqual(await eventsOf(store, other.id), ['job running', 'x waiting #0']);
        assert.deepEqual(await eventsOf(store, job.id, seqs[4]), ['b canceled #0', 'c canceled #0', 'job canceled']);
      }));

    it('records a lapsed lease and its requeue as a new attempt', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'lapse');
        const job = await addJob(store, project, [compiledTask('flaky', { maxAttempts: 2 })]);
        const { worker } = await addWorker(store, 'w');
        await store.claimNextTask(filterFor(), leaseFor(worker, T0));
        await store.reapExpiredTasks(T0 + LEASE_MS + 1);
        await store.claimNextTask(filterFor(), leaseFor(worker, T0 + LEASE_MS + 2));
        assert.deepEqual(await eventsOf(store, job.id), ['job running', 'flaky waiting #0', 'flaky running #1', 'flaky waiting #1', 'flaky running #2']);
      }));

    it("lists a project's job creations and outcomes, not its task events", () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'feed');
        const elsewhere = await addProject(store, 'elsewhere');
        const first = await addJob(store, project, [compiledTask('a')]);
        await addJob(store, elsewhere, [compiledTask('a')]);
        const second = await addJob(store, project, [compiledTask('a')], T0 + 1);
        await store.cancelJob(first.id, T0 + 2);
        const events = await store.listProjectJobEvents(project.id, 0, 100);
        assert.deepEqual(
          events.map((event) => [event.job.number, event.state]),
          [[1, 'running'], [2, 'running'], [1, 'canceled']],
        );
        assert.equal(events[1]?.job.id, second.id);
        assert.deepEqual(await store.listProjectJobEvents(project.id, events[1]?.seq ?? 0, 100).then((rest) => rest.map((event) => event.seq)), [events[2]?.seq]);
      }));
  });
}
