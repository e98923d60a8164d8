// The store contract for plain records: projects, variables, workers, jobs as stored, artifacts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha256Hex } from '../ids.js';
import type { OpenStore } from './contract.js';
import {
  addJob,
  addProject,
  addWorker,
  compiledTask,
  makeProject,
  makeWorker,
  T0,
  withStore,
} from './contract-fixtures.js';
import { DuplicateError } from './types.js';

export function registerRecordContract(openStore: OpenStore): void {
  describe('projects and variables', () => {
    it('creates, finds by id or name, lists by name and updates a project', () =>
      withStore(openStore, async (store) => {
        const beta = await addProject(store, 'beta', 'u1');
        const alpha = await addProject(store, 'alpha');
        assert.deepEqual(await store.findProject(beta.id), beta);
        assert.deepEqual(await store.findProject('beta'), beta);
        assert.equal(await store.findProject('gamma'), null);
        assert.deepEqual((await store.listProjects()).map((project) => project.name), ['alpha', 'beta']);
        const updated = await store.updateProject(alpha.id, { enabled: false, visibility: 'public', triggerSecret: 'new' }, T0 + 5);
        assert.deepEqual(updated, { ...alpha, enabled: false, visibility: 'public', triggerSecret: 'new', updatedAt: T0 + 5 });
        assert.deepEqual(await store.findProject(alpha.id), updated);
        assert.equal(await store.isProjectKeyTaken('alpha'), true);
        assert.equal(await store.isProjectKeyTaken(beta.id), true);
        assert.equal(await store.isProjectKeyTaken('gamma'), false);
      }));

    it('keeps the realm a project was created in', () =>
      withStore(openStore, async (store) => {
        const acme = { ...makeProject('acme-site', 'u2'), realm: 'acme' };
        await store.createProject(acme);
        const system = await addProject(store, 'plain');
        assert.equal((await store.findProject('acme-site'))?.realm, 'acme');
        assert.equal((await store.findProject(system.id))?.realm, 'system');
        const updated = await store.updateProject(acme.id, { visibility: 'public' }, T0 + 1);
        assert.equal(updated.realm, 'acme');
        assert.deepEqual((await store.listProjects()).map((project) => [project.name, project.realm]), [['acme-site', 'acme'], ['plain', 'system']]);
      }));

    it('refuses a taken name, or a name or id equal to a project id, with DuplicateError and stores nothing', () =>
      withStore(openStore, async (store) => {
        const first = await addProject(store, 'first');
        await assert.rejects(store.createProject(makeProject('first')), DuplicateError);
        await assert.rejects(store.createProject({ ...makeProject('other'), name: first.id }), DuplicateError);
        await assert.rejects(store.createProject({ ...makeProject('second'), id: first.id }), DuplicateError);
        assert.deepEqual((await store.listProjects()).map((project) => project.name), ['first']);
      }));

    it('lets exactly one of concurrent creations of one name through', () =>
      withStore(openStore, async (store) => {
        const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.createProject(makeProject('race'))));
        assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
        for (const result of results) if (result.status === 'rejected') assert.ok(result.reason instanceof DuplicateError);
        assert.equal((await store.listProjects()).length, 1);
      }));

    it('sets, replaces, lists by name and unsets variables per project', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'vars');
        const other = await addProject(store, 'other');
        await store.setVariable(project.id, { name: 'TOKEN', value: 'one', secret: true }, T0);
        await store.setVariable(project.id, { name: 'A', value: 'x', secret: false }, T0);
        await store.setVariable(project.id, { name: 'TOKEN', value: 'two', secret: false }, T0 + 1);
        assert.deepEqual(await store.listVariables(project.id), [
          { name: 'A', value: 'x', secret: false },
          { name: 'TOKEN', value: 'two', secret: false },
        ]);
        assert.deepEqual(await store.listVariables(other.id), []);
        assert.equal(await store.unsetVariable(project.id, 'A'), true);
        assert.equal(await store.unsetVariable(project.id, 'A'), false);
        assert.deepEqual((await store.listVariables(project.id)).map((variable) => variable.name), ['TOKEN']);
      }));
  });

  describe('workers', () => {
    it('finds a worker by token hash until it is revoked, by id, and by name (newest)', () =>
      withStore(openStore, async (store) => {
        const { worker, token } = await addWorker(store, 'builder', 'u1');
        assert.deepEqual(await store.findWorkerByTokenHash(sha256Hex(token)), worker);
        assert.equal(await store.findWorkerByTokenHash(sha256Hex('wrong')), null);
        await store.revokeWorker(worker.id, T0 + 10);
        assert.equal(await store.findWorkerByTokenHash(sha256Hex(token)), null);
        assert.equal((await store.findWorker(worker.id))?.revokedAt, T0 + 10);
        const again = makeWorker('builder');
        await store.createWorker({ ...again, createdAt: T0 + 20 }, sha256Hex('second'));
        assert.equal((await store.findWorker('builder'))?.id, again.id, 'a revoked name may be used again; the newest is found');
        assert.deepEqual((await store.listWorkers()).map((listed) => listed.id), [worker.id, again.id]);
      }));

    it('refuses a second live worker of one name, also when created concurrently', () =>
      withStore(openStore, async (store) => {
        await addWorker(store, 'solo');
        await assert.rejects(store.createWorker(makeWorker('solo'), sha256Hex('x')), DuplicateError);
        const results = await Promise.allSettled(
          Array.from({ length: 8 }, (_, index) => store.createWorker(makeWorker('pair'), sha256Hex(`pair-${index}`))),
        );
        assert.equal(results.filter((result) => result.status === 'fulfilled').length, 1);
        assert.equal((await store.listWorkers()).length, 2);
      }));

    it('records when a worker was seen', () =>
      withStore(openStore, async (store) => {
        const { worker } = await addWorker(store, 'seen');
        await store.touchWorker(worker.id, T0 + 60_000);
        assert.equal((await store.findWorker(worker.id))?.lastSeenAt, T0 + 60_000);
      }));
  });

  describe('jobs as stored', () => {
    it('numbers jobs per project and keeps every task field in file order', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'numbers');
        const other = await addProject(store, 'others');
        const tasks = [
          compiledTask('build', {
            requires: ['docker'],
            services: [{ name: 'db', image: 'postgres:16', env: { A: '1' }, command: [] }],
            artifactPaths: ['dist/**'],
            artifactExpireIn: 7 * 86_400,
            matrix: { os: 'linux' },
            maxAttempts: 3,
            allowFailure: true,
          }),
          compiledTask('test', { needs: ['build'] }),
        ];
        const first = await addJob(store, project, tasks);
        const second = await addJob(store, project, tasks);
        const elsewhere = await addJob(store, other, tasks);
        assert.deepEqual([first.number, second.number, elsewhere.number], [1, 2, 1]);
        assert.equal(first.state, 'running');
        assert.deepEqual(await store.findJob(project.id, '2'), second);
        assert.deepEqual(await store.findJob(project.id, first.id), first);
        assert.equal(await store.findJob(other.id, first.id), null, 'never across projects');
        assert.deepEqual(await store.getJobById(elsewhere.id), elsewhere);
        const stored = await store.listTasksOfJob(first.id);
        assert.deepEqual(
          stored.map((task) => [task.name, task.state, task.position, task.attempt, task.logSize]),
          [['build', 'waiting', 0, 0, 0], ['test', 'blocked', 1, 0, 0]],
        );
        const [build] = stored;
        assert.ok(build !== undefined);
        const { name, baseName, image, script, env, arch, requires, services, artifactPaths, artifactExpireIn, workdir, timeout, maxAttempts, allowFailure, needs, matrix } = build;
        assert.deepEqual(
          { name, baseName, image, script, env, arch, requires, services, artifactPaths, artifactExpireIn, workdir, timeout, maxAttempts, allowFailure, needs, matrix },
          tasks[0],
        );
        assert.deepEqual(await store.getTask(build.id), build);
      }));

    it('gives concurrent insertions for one project distinct numbers', () =>
      withStore(openStore, async (store) => {
        const project = await addProject(store, 'busy');
        const jobs = await Promise.all(Array.from({ length: 16 }, () => addJob(store, project, [compiledTask('a')])));
        assert.deepEqual(jobs.map((job) => job.number).sort((a, b) => a - b), Array.from({ length: 16 }, (_, index) => index + 1));
      }));
  });
}
