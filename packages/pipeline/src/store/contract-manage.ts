// The store contract for what the management API reads and removes: project pages with their newest
// job, renames, a project's removal with everything it holds, workers' activity, API tokens.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId, sha256Hex } from '../ids.js';
import type { OpenStore } from './contract.js';
import { addJob, addProject, addWorker, compiledTask, filterFor, leaseFor, T0, withStore } from './contract-fixtures.js';
import { DuplicateError, type ApiToken, type PipelineStore, type ProjectPageQuery } from './types.js';

const page = (store: PipelineStore, query: Partial<ProjectPageQuery>) =>
  store.listProjectPage({ realm: 'system', all: false, ownerUserId: 'u1', afterName: null, limit: 50, ...query });

function makeToken(name: string, userId = 'u1', realm = 'system'): ApiToken {
  return { id: newId(), userId, realm, name, createdAt: T0, lastUsedAt: null, revokedAt: null };
}

export function registerManageContract(openStore: OpenStore): void {
  describe('management: project pages', () => {
    it("lists public projects and the owner's own by name, each with its newest job, paged after a name", () =>
      withStore(openStore, async (store) => {
        const mine = await addProject(store, 'mine', 'u1');
        const theirs = await addProject(store, 'theirs', 'u2');
        const open = await addProject(store, 'open', 'u2');
        await store.updateProject(open.id, { visibility: 'public' }, T0);
        await addJob(store, mine, [compiledTask('a')], T0 + 1);
        const second = await addJob(store, mine, [compiledTask('a')], T0 + 2);
        const names = (listings: { project: { name: string } }[]) => listings.map((listing) => listing.project.name);

        const first = await page(store, {});
        assert.deepEqual(names(first), ['mine', 'open']);
        assert.deepEqual(first[0]?.lastJob, { id: second.id, number: 2, state: second.state, ref: second.ref, createdAt: T0 + 2 });
        assert.equal(first[1]?.lastJob, null);
        assert.deepEqual(names(await page(store, { all: true })), ['mine', 'open', 'theirs']);
        assert.deepEqual(names(await page(store, { all: true, afterName: 'mine', limit: 1 })), ['open']);
        assert.deepEqual(names(await page(store, { all: true, afterName: 'theirs' })), []);
        assert.deepEqual(names(await page(store, { all: true, realm: 'acme' })), [], 'projects without a realm are in system');
        assert.equal(theirs.ownerUserId, 'u2');
      }));

    it('renames a project unless the name is another project\'s name or id (DuplicateError, nothing changed)', () =>
      withStore(openStore, async (store) => {
        const one = await addProject(store, 'one');
        const two = await addProject(store, 'two');
        assert.equal((await store.updateProject(one.id, { name: 'uno' }, T0 + 1)).name, 'uno');
        await assert.rejects(store.updateProject(one.id, { name: 'two', enabled: false }, T0 + 2), DuplicateError);
        await assert.rejects(store.updateProject(one.id, { name: two.id }, T0 + 2), DuplicateError);
        assert.deepEqual(await store.findProject(one.id), { ...one, name: 'uno', updatedAt: T0 + 1 });
      }));
  });

  describe('management: removing a project', () => {
    it('removes the project, its variables, jobs, tasks and artifact records, returns what has bytes, and leaves other projects alone', () =>
      withStore(openStore, async (store) => {
        const doomed = await addProject(store, 'doomed');
        const kept = await addProject(store, 'kept');
        await store.setVariable(doomed.id, { name: 'A', value: 'x', secret: false }, T0);
        await store.setVariable(kept.id, { name: 'B', value: 'y', secret: false }, T0);
        const job = await addJob(store, doomed, [compiledTask('build'), compiledTask('test')]);
        const keptJob = await addJob(store, kept, [compiledTask('build')]);
        const { worker } = await addWorker(store, 'w');
        const task = await store.claimNextTask(filterFor(), leaseFor(worker));
        assert.equal(task?.jobId, job.id);
        const reservation = { id: newId(), taskId: task.id, attempt: 1, path: 'out.txt', size: 1, createdAt: T0 };
        await store.reserveArtifact(reservation, worker.id, 1000);
        await store.commitArtifact(reservation.id, worker.id, { size: 1, sha256: '0'.repeat(64), createdAt: T0, expiresAt: null });
        const taskIds = (await store.listTasksOfJob(job.id)).map((each) => each.id).sort();

        const removed = await store.deleteProject(doomed.id);
        assert.deepEqual(removed?.artifactIds, [reservation.id]);
        assert.deepEqual([...(removed?.taskIds ?? [])].sort(), taskIds);
        assert.equal(await store.findProject(doomed.id), null);
        assert.equal(await store.getJobById(job.id), null);
        assert.equal(await store.getTask(task.id), null);
        assert.equal(await store.hasArtifactRecord(reservation.id), false);
        assert.deepEqual(await store.listVariables(doomed.id), []);
        assert.equal(await store.deleteProject(doomed.id), null, 'an unknown id');
        assert.equal((await store.getJobById(keptJob.id))?.id, keptJob.id);
        assert.deepEqual(await store.listVariables(kept.id), [{ name: 'B', value: 'y', secret: false }]);
        assert.equal(await store.isProjectKeyTaken('doomed'), false, 'the name is free again');
      }));
  });

  describe('management: workers', () => {
    it('lists live workers (all, or one owner\'s) with the task each holds', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'work');
        const job = await addJob(store, project, [compiledTask('build')]);
        const { worker: busy } = await addWorker(store, 'busy', 'u1');
        const { worker: idle } = await addWorker(store, 'idle', 'u2');
        const { worker: gone } = await addWorker(store, 'gone', 'u1');
        await store.revokeWorker(gone.id, T0 + 1);
        const task = await store.claimNextTask(filterFor(), leaseFor(busy));
        assert.ok(task !== null);

        const all = await store.listWorkerActivity(null);
        assert.deepEqual(all.map((entry) => entry.worker.name), ['busy', 'idle']);
        assert.deepEqual(all[0]?.heldTask, { id: task.id, name: 'build', projectId: project.id, projectName: 'work', jobId: job.id, jobNumber: 1 });
        assert.equal(all[1]?.heldTask, null);
        assert.deepEqual((await store.listWorkerActivity('u2')).map((entry) => entry.worker.id), [idle.id]);
        await store.completeTask(task.id, busy.id, { success: true, exitCode: 0, error: null }, T0 + 2);
        assert.equal((await store.listWorkerActivity('u1'))[0]?.heldTask, null, 'a finished task is no longer held');
      }));
  });

  describe('management: API tokens', () => {
    it('finds a token by its hash until revoked, lists a user\'s tokens per realm, and records use', () =>
      withStore(openStore, async (store) => {
        const first = makeToken('laptop');
        const second = { ...makeToken('ci'), createdAt: T0 + 1 };
        const elsewhere = makeToken('acme', 'u1', 'acme');
        const other = makeToken('theirs', 'u2');
        await store.createApiToken(first, sha256Hex('t1'));
        await store.createApiToken(second, sha256Hex('t2'));
        await store.createApiToken(elsewhere, sha256Hex('t3'));
        await store.createApiToken(other, sha256Hex('t4'));
        assert.deepEqual(await store.findApiTokenByHash(sha256Hex('t1')), first);
        assert.equal(await store.findApiTokenByHash(sha256Hex('nope')), null);
        assert.deepEqual((await store.listApiTokens('u1', 'system')).map((token) => token.name), ['laptop', 'ci']);
        assert.equal(await store.revokeApiToken(other.id, 'u1', 'system', T0 + 5), false, "another user's token");
        assert.equal(await store.revokeApiToken(elsewhere.id, 'u1', 'system', T0 + 5), false, "another realm's token");
        assert.equal(await store.revokeApiToken(first.id, 'u1', 'system', T0 + 5), true);
        assert.equal(await store.revokeApiToken(first.id, 'u1', 'system', T0 + 6), false, 'already revoked');
        assert.equal(await store.findApiTokenByHash(sha256Hex('t1')), null);
        assert.deepEqual((await store.listApiTokens('u1', 'system')).map((token) => token.name), ['ci']);
        await store.touchApiToken(second.id, T0 + 60_000);
        assert.equal((await store.findApiTokenByHash(sha256Hex('t2')))?.lastUsedAt, T0 + 60_000);
      }));
  });
}
