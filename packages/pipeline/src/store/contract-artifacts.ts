// The store contract for artifacts: pending records before bytes, commit per attempt, caps, expiry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newId } from '../ids.js';
import type { OpenStore } from './contract.js';
import { addJob, addProject, addWorker, compiledTask, filterFor, leaseFor, T0, withStore } from './contract-fixtures.js';
import type { ArtifactCompletion, ArtifactReservation, PipelineStore, Task, Worker } from './types.js';

const NO_CAP = Number.MAX_SAFE_INTEGER;

function reservationOf(task: Task, path: string, size: number, attempt = task.attempt): ArtifactReservation {
  return { id: newId(), taskId: task.id, attempt, path, size, createdAt: T0 };
}

function completionOf(size: number, expiresAt: number | null = T0 + 1000): ArtifactCompletion {
  return { size, sha256: String(size).padStart(64, '0'), createdAt: T0 + 1, expiresAt };
}

/** A job of one task (`attempts` tries), claimed by a fresh worker. */
async function heldTask(store: PipelineStore, name: string, attempts = 1): Promise<{ task: Task; worker: Worker }> {
  const project = await addProject(store, name);
  await addJob(store, project, [compiledTask('build', { maxAttempts: attempts })]);
  const { worker } = await addWorker(store, `${name}-worker`);
  const task = await store.claimNextTask(filterFor(), leaseFor(worker));
  assert.ok(task !== null);
  return { task, worker };
}

/** Reserves and commits in one go; returns the committed artifact. */
async function upload(store: PipelineStore, task: Task, worker: Worker, path: string, size: number, expiresAt: number | null = T0 + 1000) {
  const reservation = reservationOf(task, path, size);
  assert.deepEqual(await store.reserveArtifact(reservation, worker.id, NO_CAP), { kind: 'reserved' });
  const { artifact, replaced } = await store.commitArtifact(reservation.id, worker.id, completionOf(size, expiresAt));
  assert.ok(artifact !== null);
  return { artifact, replaced };
}

export function registerArtifactContract(openStore: OpenStore): void {
  describe('artifacts', () => {
    it('keeps a reserved artifact invisible until it is committed, then lists it by path', () =>
      withStore(openStore, async (store) => {
        const { task, worker } = await heldTask(store, 'files');
        const reservation = reservationOf(task, 'dist/z.txt', 5);
        assert.deepEqual(await store.reserveArtifact(reservation, worker.id, NO_CAP), { kind: 'reserved' });
        assert.equal(await store.getArtifact(reservation.id), null);
        assert.deepEqual(await store.listArtifacts(task.id, task.attempt), []);
        assert.deepEqual(await store.listUnsettledArtifacts(), [reservation.id]);
        assert.equal(await store.hasArtifactRecord(reservation.id), true);
        const { artifact, replaced } = await store.commitArtifact(reservation.id, worker.id, completionOf(5));
        assert.deepEqual(artifact, {
          id: reservation.id, taskId: task.id, attempt: 1, path: 'dist/z.txt', size: 5, sha256: completionOf(5).sha256, createdAt: T0 + 1, expiresAt: T0 + 1000,
        });
        assert.equal(replaced, null);
        assert.deepEqual(await store.listUnsettledArtifacts(), []);
        const { artifact: other } = await upload(store, task, worker, 'dist/a.txt', 2);
        assert.deepEqual(await store.listArtifacts(task.id, 1), [other, artifact]);
        assert.deepEqual(await store.getArtifact(reservation.id), artifact);
        assert.equal((await store.commitArtifact(newId(), worker.id, completionOf(1))).artifact, null, 'an unknown id');
      }));

    it('replaces by path within an attempt: the replaced one is marked for deletion until its record is removed', () =>
      withStore(openStore, async (store) => {
        const { task, worker } = await heldTask(store, 'replace');
        const { artifact: first } = await upload(store, task, worker, 'out.txt', 1);
        const { artifact: second, replaced } = await upload(store, task, worker, 'out.txt', 3);
        assert.deepEqual(replaced, first);
        assert.deepEqual(await store.listArtifacts(task.id, 1), [second]);
        assert.equal(await store.getArtifact(first.id), null);
        assert.deepEqual(await store.listUnsettledArtifacts(), [first.id]);
        await store.removeArtifactRecord(first.id);
        assert.equal(await store.hasArtifactRecord(first.id), false);
        assert.deepEqual(await store.listUnsettledArtifacts(), []);
      }));

    it('keeps each attempt its own artifacts: a retry does not replace or list the failed attempt', () =>
      withStore(openStore, async (store) => {
        const { task, worker } = await heldTask(store, 'attempts', 2);
        const { artifact: failed } = await upload(store, task, worker, 'report.txt', 1);
        await store.completeTask(task.id, worker.id, { success: false, exitCode: 1, error: 'boom' }, T0 + 2);
        const retry = await store.claimNextTask(filterFor(), leaseFor(worker, T0 + 3));
        assert.ok(retry !== null && retry.attempt === 2);
        assert.deepEqual(await store.listArtifacts(task.id, 2), []);
        const { artifact: kept, replaced } = await upload(store, retry, worker, 'report.txt', 2);
        assert.equal(replaced, null, 'the same path in another attempt is not replaced');
        assert.deepEqual(await store.listArtifacts(task.id, 1), [failed]);
        assert.deepEqual(await store.listArtifacts(task.id, 2), [kept]);
      }));

    it('reserves nothing for a worker that does not hold the task at that attempt, and drops a commit that lost the task', () =>
      withStore(openStore, async (store) => {
        const { task, worker } = await heldTask(store, 'held', 2);
        const { worker: stranger } = await addWorker(store, 'stranger');
        assert.deepEqual(await store.reserveArtifact(reservationOf(task, 'x', 1), stranger.id, NO_CAP), { kind: 'not-held' });
        assert.deepEqual(await store.reserveArtifact(reservationOf(task, 'x', 1, 2), worker.id, NO_CAP), { kind: 'not-held' }, 'not at attempt 2');
        const late = reservationOf(task, 'late.txt', 1);
        assert.deepEqual(await store.reserveArtifact(late, worker.id, NO_CAP), { kind: 'reserved' });
        await store.completeTask(task.id, worker.id, { success: true, exitCode: 0, error: null }, T0 + 1);
        assert.deepEqual(await store.commitArtifact(late.id, worker.id, completionOf(1)), { artifact: null, replaced: null });
        assert.deepEqual(await store.listUnsettledArtifacts(), [late.id], 'its bytes are for the caller to remove');
        assert.deepEqual(await store.reserveArtifact(reservationOf(task, 'y', 1), worker.id, NO_CAP), { kind: 'not-held' });
        assert.deepEqual(await store.listArtifacts(task.id, 1), []);
      }));

    it('refuses a reservation past the attempt cap, counting stored and pending bytes but not the path it replaces', () =>
      withStore(openStore, async (store) => {
        const { task, worker } = await heldTask(store, 'cap');
        await upload(store, task, worker, 'a', 40);
        const pending = reservationOf(task, 'b', 30);
        assert.deepEqual(await store.reserveArtifact(pending, worker.id, 100), { kind: 'reserved' });
        assert.deepEqual(await store.reserveArtifact(reservationOf(task, 'c', 31), worker.id, 100), { kind: 'over-limit', storedBytes: 70 });
        assert.deepEqual(await store.reserveArtifact(reservationOf(task, 'a', 70), worker.id, 100), { kind: 'reserved' }, 'a replaces its 40 bytes');
        assert.equal((await store.listUnsettledArtifacts()).length, 2, 'the refused one left no record');
      }));

    it('lets concurrent reservations through only up to the cap', () =>
      withStore(openStore, async (store) => {
        const { task, worker } = await heldTask(store, 'race');
        const results = await Promise.all(Array.from({ length: 8 }, (_, index) => store.reserveArtifact(reservationOf(task, `f${index}`, 100), worker.id, 300)));
        assert.equal(results.filter((result) => result.kind === 'reserved').length, 3);
        assert.equal((await store.listUnsettledArtifacts()).length, 3);
      }));

    it('lists expired artifacts oldest expiry first, and gives those without an expiry one', () =>
      withStore(openStore, async (store) => {
        const { task, worker } = await heldTask(store, 'expiry');
        const { artifact: late } = await upload(store, task, worker, 'late', 1, T0 + 500);
        const { artifact: early } = await upload(store, task, worker, 'early', 1, T0 + 100);
        const { artifact: never } = await upload(store, task, worker, 'never', 1, null);
        assert.deepEqual(await store.listExpiredArtifacts(T0 + 99, 10), []);
        assert.deepEqual(await store.listExpiredArtifacts(T0 + 500, 10), [early, late]);
        assert.deepEqual(await store.listExpiredArtifacts(T0 + 500, 1), [early]);
        assert.equal(await store.assignMissingArtifactExpiry(60_000), 1);
        assert.equal((await store.getArtifact(never.id))?.expiresAt, never.createdAt + 60_000);
        assert.equal(await store.assignMissingArtifactExpiry(60_000), 0);
      }));
  });
}
