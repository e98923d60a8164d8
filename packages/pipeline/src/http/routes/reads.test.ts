import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyRequest } from 'fastify';
import type { SessionResolver } from '../credentials.js';
import { startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = `
tasks:
  build:
    image: x
    script: [make --secret-flag]
    env: {TOKEN: hidden-env-value}
    services: [{name: db, image: "postgres:16"}]
    matrix: {os: [linux]}
    artifacts: ["out/*"]
`;

const TASK_KEYS = [
  'allow_failure', 'arch', 'artifact_paths', 'attempt', 'base_name', 'created_at', 'error', 'exit_code', 'finished_at', 'id',
  'image', 'job_id', 'job_number', 'log_size', 'matrix', 'max_attempts', 'name', 'needs', 'project_id', 'ref', 'sha',
  'started_at', 'state', 'timeout', 'visibility', 'workdir', 'worker_name',
];

/** The realm a test request's Host would select: `x-test-realm` (system by default, `nowhere` for no realm). */
function testRealm(request: FastifyRequest): string | null {
  const realm = request.headers['x-test-realm'];
  if (realm === 'nowhere') return null;
  return typeof realm === 'string' ? realm : 'system';
}

/** Stands in for the sign-in service's answer: the access rules take whatever viewer it reports. */
const headerSessions: SessionResolver = {
  async resolve(request) {
    const user = request.headers['x-test-user'];
    const realm = testRealm(request);
    if (typeof user !== 'string' || realm === null) return null;
    return { userId: user, username: user, realm, roles: user === 'root' ? ['system-admin'] : user === 'ruth' ? ['realm-admin'] : [] };
  },
  realmOf: async (request) => testRealm(request),
  rolesOf: async () => null,
};

describe('reading jobs and tasks: access rules', () => {
  let service: TestService;
  let open: TestProject;
  let closed: TestProject;
  let openJob: string;
  let closedJob: string;
  let openTask: string;
  let closedTask: string;

  before(async () => {
    service = await startTestService({ sessions: headerSessions });
    open = await service.addProject({ name: 'open', visibility: 'public', pipeline: PIPELINE });
    closed = await service.addProject({ name: 'closed', visibility: 'private', owner: 'olivia', pipeline: PIPELINE });
    openJob = (await service.startJob(open, await open.commit({ a: 'a' }))).body.job_id;
    closedJob = (await service.startJob(closed, await closed.commit({ a: 'a' }))).body.job_id;
    openTask = (await service.deps.store.listTasksOfJob(openJob))[0]?.id ?? '';
    closedTask = (await service.deps.store.listTasksOfJob(closedJob))[0]?.id ?? '';
  });
  after(() => service.stop());

  const status = async (path: string, options: { secret?: string; user?: string; realm?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (options.user !== undefined) headers['x-test-user'] = options.user;
    if (options.realm !== undefined) headers['x-test-realm'] = options.realm;
    return (await service.call('GET', path, { secret: options.secret, headers })).status;
  };

  it("serves a project only on its realm's hosts: elsewhere every read is 404, whoever asks", async () => {
    const acme = await service.addProject({ name: 'acme-open', visibility: 'public', realm: 'acme', pipeline: PIPELINE });
    const job = (await service.startJob(acme, await acme.commit({ a: 'a' }), {}, { 'x-test-realm': 'acme' })).body.job_id;
    const task = (await service.deps.store.listTasksOfJob(job))[0]?.id ?? '';
    const paths = [`/api/v1/projects/acme-open/jobs/${job}`, `/api/v1/projects/acme-open/tasks/${task}`, `/api/v1/tasks/${task}`];
    for (const path of paths) {
      assert.equal(await status(path, { realm: 'acme' }), 200, path);
      assert.equal(await status(path), 404, `${path} on the system realm's host`);
      assert.equal(await status(path, { realm: 'nowhere' }), 404, `${path} on a host no realm has`);
      assert.equal(await status(path, { realm: 'other', user: 'root' }), 404, `${path}: another realm's administrator`);
      assert.equal(await status(path, { secret: acme.secret }), 404, `${path}: the trigger secret on another realm's host`);
    }
    assert.equal(await status(`/api/v1/projects/open/jobs/${openJob}`, { realm: 'acme' }), 404, "a system project on acme's host");
    // A trigger on another realm's host: the project does not exist there.
    assert.equal((await service.startJob(acme, await acme.commit({ b: 'b' }))).status, 404);
  });

  it("a realm administrator manages the projects of their realm only; the owner whatever their roles", async () => {
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`, { user: 'ruth' }), 200, 'realm-admin of system');
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`, { user: 'ruth', realm: 'acme' }), 404, 'realm-admin of acme');
  });

  it('job read: public to anyone; private to its trigger secret or a session that may manage it', async () => {
    assert.equal(await status(`/api/v1/projects/open/jobs/${openJob}`), 200);
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`), 404);
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`, { secret: closed.secret }), 200);
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`, { secret: open.secret }), 404, "another project's secret");
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`, { user: 'olivia' }), 200, 'the owner');
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`, { user: 'root' }), 200, 'an administrator');
    assert.equal(await status(`/api/v1/projects/closed/jobs/${closedJob}`, { user: 'mallory' }), 404);
    assert.equal(await status('/api/v1/projects/closed/jobs/1', { secret: closed.secret }), 200, 'by per-project number');
    assert.equal(await status(`/api/v1/projects/open/jobs/${closedJob}`), 404, 'a job of another project');
    assert.equal(await status('/api/v1/projects/nope/jobs/1'), 404);

    const response = await service.call('GET', `/api/v1/projects/open/jobs/${openJob}`);
    const body = (await response.json()) as { job: Record<string, unknown>; tasks: unknown[] };
    for (const key of ['id', 'number', 'state', 'ref', 'head_sha', 'visibility', 'created_at']) assert.ok(key in body.job, key);
    assert.equal(body.job.visibility, 'public');
    assert.equal(body.job.state, 'running');
    assert.match(String(body.job.head_sha), /^[0-9a-f]{40}$/);
    assert.equal(body.tasks.length, 1);
  });

  it('bare task read: public or session only; a signature proves nothing there', async () => {
    assert.equal(await status(`/api/v1/tasks/${openTask}`), 200);
    assert.equal(await status(`/api/v1/tasks/${closedTask}`), 404);
    assert.equal(await status(`/api/v1/tasks/${closedTask}`, { secret: closed.secret }), 404);
    assert.equal(await status(`/api/v1/tasks/${closedTask}`, { user: 'olivia' }), 200);
    assert.equal(await status(`/api/v1/tasks/${closedTask}`, { user: 'mallory' }), 404);
    assert.equal(await status('/api/v1/tasks/not-a-task'), 404);
  });

  it('scoped task read: the project must own the task, then public, secret or session', async () => {
    assert.equal(await status(`/api/v1/projects/open/tasks/${openTask}`), 200);
    assert.equal(await status(`/api/v1/projects/closed/tasks/${closedTask}`), 404);
    assert.equal(await status(`/api/v1/projects/closed/tasks/${closedTask}`, { secret: closed.secret }), 200);
    assert.equal(await status(`/api/v1/projects/closed/tasks/${closedTask}`, { user: 'olivia' }), 200);
    // A guessed id read through a project the caller can read: refused.
    assert.equal(await status(`/api/v1/projects/open/tasks/${closedTask}`), 404);
    assert.equal(await status(`/api/v1/projects/open/tasks/${closedTask}`, { secret: open.secret }), 404);
  });

  it('returns the same body on both task paths, without env, services or script', async () => {
    const bare = await (await service.call('GET', `/api/v1/tasks/${openTask}`)).json();
    const scoped = await (await service.call('GET', `/api/v1/projects/open/tasks/${openTask}`)).json();
    assert.deepEqual(bare, scoped);
    const { task, artifacts } = bare as { task: Record<string, unknown>; artifacts: unknown[] };
    assert.deepEqual(Object.keys(task).sort(), TASK_KEYS);
    assert.deepEqual(artifacts, []);
    const text = JSON.stringify(bare);
    for (const secret of ['hidden-env-value', 'secret-flag', 'postgres']) assert.ok(!text.includes(secret), secret);
    assert.equal(task.name, 'build:os=linux');
    assert.equal(task.base_name, 'build');
    assert.deepEqual(task.matrix, { os: 'linux' });
    assert.deepEqual(task.artifact_paths, ['out/*']);
    assert.equal(task.project_id, open.project.id);
    assert.equal(task.job_id, openJob);
    assert.equal(task.job_number, 1);
    assert.equal(task.visibility, 'public');
    assert.equal(task.attempt, 0);
    assert.equal(task.max_attempts, 1);
    assert.equal(task.exit_code, null);
    assert.equal(task.timeout, 3600);
  });

  it('makes every id random and opaque: 136 bits, never option-like, no shared structure between a task, its job and project', () => {
    const ids = [openTask, closedTask, openJob, closedJob, open.project.id, closed.project.id];
    for (const id of ids) assert.match(id, /^[A-Za-z0-9][A-Za-z0-9_-]{22}$/);
    assert.equal(new Set(ids.map((id) => id.slice(0, 6))).size, ids.length, 'no common prefix');
  });
});
