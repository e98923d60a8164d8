// The management API's job calls over real HTTP on one server with both services, with real sign-ins,
// a real git repository and a worker speaking the real protocol.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { admin } from '@conveyor/pipeline';
import { makeRepository, startSignedInServer, type SignedInServer } from '../testing/signed-in-server.js';

// A failing build skips three dependents; the build's script is the worker's to decide here.
const PIPELINE = `tasks:
  build:
    image: x
    script: [make]
  test:
    image: x
    script: [make test]
    needs: [build]
  package:
    image: x
    script: [make package]
    needs: [test]
  deploy:
    image: x
    script: [make deploy]
    needs: [package]
  lint:
    image: x
    script: [make lint]
`;

type Json = Record<string, unknown>;
interface Summary {
  name: string;
  state: string;
  attempt: number;
  started_at: number | null;
  finished_at: number | null;
  waiting_reason: string | null;
}

describe('management API: jobs', () => {
  let server: SignedInServer;
  let alice: string;
  let bob: string;
  let root: string;
  let workerToken: string;
  let head: string;

  before(async () => {
    server = await startSignedInServer();
    const aliceId = await server.addUser('alice');
    await server.addUser('bob');
    await server.addUser('root', ['system-admin']);
    [alice, bob, root] = [await server.signIn('alice'), await server.signIn('bob'), await server.signIn('root')];
    const repository = makeRepository(join(server.dir, 'repo'));
    head = repository.commit({ '.pipeline.yml': PIPELINE });
    await admin.createProject(server.pipeline, { name: 'demo', repo: repository.repo, visibility: 'private', ownerUserId: aliceId });
    workerToken = (await admin.createWorker(server.pipeline, { name: 'runner', ownerUserId: null })).token;
  });
  after(() => server.close());

  async function call(method: string, path: string, options: { cookie?: string; body?: string | object } = {}) {
    const headers: Record<string, string> = {};
    // A browser sends its page's origin with every change; the CSRF check requires it with a cookie.
    if (options.cookie !== undefined) Object.assign(headers, { cookie: options.cookie, origin: server.url });
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await fetch(`${server.url}${path}`, { method, headers, body });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return { status: response.status, text, body: (type.includes('json') ? JSON.parse(text) : {}) as Json };
  }

  const listJobs = async (query = '') => (await call('GET', `/api/v1/projects/demo/jobs${query}`, { cookie: alice })).body as unknown as { jobs: Json[]; next_cursor: string | null };
  const jobCount = async () => (await listJobs('?limit=100')).jobs.length;
  const readJob = async (job: string) => (await call('GET', `/api/v1/projects/demo/jobs/${job}`, { cookie: alice })).body as unknown as { job: Json; tasks: Summary[] };

  /** The worker claims the next task, writes `log`, and reports `success`. */
  async function runTask(log: string, success: boolean): Promise<{ id: string; name: string; attempt: number }> {
    const auth = { authorization: `Bearer ${workerToken}`, 'content-type': 'application/json' };
    const claim = await fetch(`${server.url}/api/v1/tasks/claim`, { method: 'POST', headers: auth, body: JSON.stringify({ arches: ['amd64'], features: [], name: 'runner' }) });
    assert.equal(claim.status, 200, 'a task was handed out');
    const { task } = (await claim.json()) as { task: { id: string; name: string; attempt: number } };
    const append = await fetch(`${server.url}/api/v1/tasks/${task.id}/log`, { method: 'POST', headers: { authorization: auth.authorization, 'x-log-offset': '0' }, body: log });
    assert.equal(append.status, 200);
    const done = await fetch(`${server.url}/api/v1/tasks/${task.id}/complete`, { method: 'POST', headers: auth, body: JSON.stringify({ success, exit_code: success ? 0 : 1 }) });
    assert.equal(done.status, 200);
    return task;
  }

  let firstJob: string;

  it('starts a job at a branch for a signed-in owner, recorded as manual by them, and refuses everyone else', async () => {
    assert.deepEqual((await call('POST', '/api/v1/projects/demo/jobs/start', { body: { ref: 'main' } })).body, { error: 'sign in first', code: 'not_signed_in' });
    assert.equal((await call('POST', '/api/v1/projects/demo/jobs/start', { cookie: bob, body: { ref: 'main' } })).status, 404);
    assert.equal(await jobCount(), 0);

    const started = await call('POST', '/api/v1/projects/demo/jobs/start', { cookie: alice, body: { ref: 'main' } });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.deepEqual({ ...started.body, job_id: '' }, { status: 'created', job_id: '', tasks: 5 });
    firstJob = started.body.job_id as string;
    const { job, tasks } = await readJob(firstJob);
    assert.deepEqual([job.ref, job.head_sha, job.trigger, job.actor], ['refs/heads/main', head, 'manual', 'alice']);
    // No worker has claimed yet: the waiting tasks say why nothing runs them.
    assert.deepEqual(
      tasks.map((task) => [task.name, task.state, task.waiting_reason, task.started_at]),
      [
        ['build', 'waiting', 'no worker is connected', null],
        ['test', 'blocked', null, null],
        ['package', 'blocked', null, null],
        ['deploy', 'blocked', null, null],
        ['lint', 'waiting', 'no worker is connected', null],
      ],
    );
    // A system administrator may start one too; the job then carries their name.
    const byRoot = await call('POST', '/api/v1/projects/demo/jobs/start', { cookie: root, body: { sha: head } });
    assert.equal(byRoot.status, 200);
    assert.deepEqual([(await readJob(byRoot.body.job_id as string)).job.actor, (await readJob(byRoot.body.job_id as string)).job.ref], ['root', '']);
    assert.equal((await call('POST', `/api/v1/projects/demo/jobs/${byRoot.body.job_id as string}/stop`, { cookie: root })).status, 200);
  });

  it('refuses bad start bodies, changing nothing', async () => {
    const before = await jobCount();
    const cases: [string | object, number, RegExp][] = [
      ['{not json', 400, /not valid JSON/],
      [{}, 400, /ref|sha/],
      [{ ref: 42 }, 400, /ref|sha/],
      [{ ref: 'main', actor: 'mallory' }, 400, /actor/],
      [{ sha: 'abc' }, 400, /ref|sha/],
      [{ ref: 'no-such-branch' }, 400, /no branch or tag 'no-such-branch'/],
      [{ ref: '--upload-pack=x' }, 400, /not a branch or tag name/],
      [{ sha: 'f'.repeat(40) }, 400, /not a commit/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await call('POST', '/api/v1/projects/demo/jobs/start', { cookie: alice, body });
      assert.equal(answer.status, status, JSON.stringify(body));
      assert.match(String(answer.body.error), message, JSON.stringify(body));
    }
    assert.equal(await jobCount(), before);
  });

  it('refuses to re-run the failed tasks of a running job, changing nothing', async () => {
    const answer = await call('POST', `/api/v1/projects/demo/jobs/${firstJob}/rerun-failed`, { cookie: alice });
    assert.equal(answer.status, 409);
    assert.equal(answer.body.code, 'job_running');
    assert.equal((await readJob(firstJob)).job.state, 'running');
  });

  it('re-runs the failed build and its three skipped dependents as new attempts; the job then succeeds', async () => {
    assert.equal((await runTask('build attempt one\n', false)).name, 'build');
    assert.equal((await runTask('lint\n', true)).name, 'lint');
    const failed = await readJob(firstJob);
    assert.equal(failed.job.state, 'failure');
    assert.deepEqual(failed.tasks.map((task) => task.state), ['failure', 'skipped', 'skipped', 'skipped', 'success']);
    const lintFinished = failed.tasks[4]?.finished_at;
    assert.ok(typeof lintFinished === 'number' && typeof failed.tasks[4]?.started_at === 'number');

    assert.equal((await call('POST', `/api/v1/projects/demo/jobs/${firstJob}/rerun-failed`, { cookie: bob })).status, 404);
    assert.equal((await call('POST', `/api/v1/projects/demo/jobs/${firstJob}/rerun-failed`, { cookie: alice, body: { tasks: ['build'] } })).status, 400);
    assert.equal((await readJob(firstJob)).job.state, 'failure', 'refusals changed nothing');

    const rerun = await call('POST', `/api/v1/projects/demo/jobs/${firstJob}/rerun-failed`, { cookie: alice });
    assert.equal(rerun.status, 200, JSON.stringify(rerun.body));
    assert.equal(rerun.body.rerun_tasks, 4);
    assert.deepEqual([(rerun.body.job as Json).state, (rerun.body.job as Json).finished_at], ['running', null]);
    assert.deepEqual((rerun.body.tasks as Summary[]).map((task) => task.state), ['waiting', 'blocked', 'blocked', 'blocked', 'success']);

    const build = await runTask('build attempt two\n', true);
    assert.deepEqual([build.name, build.attempt], ['build', 2]);
    for (const name of ['test', 'package', 'deploy']) {
      const task = await runTask(`${name}\n`, true);
      assert.deepEqual([task.name, task.attempt], [name, 1]);
    }
    const done = await readJob(firstJob);
    assert.equal(done.job.state, 'success');
    assert.deepEqual(done.tasks.map((task) => [task.name, task.attempt]), [['build', 2], ['test', 1], ['package', 1], ['deploy', 1], ['lint', 1]]);
    assert.equal(done.tasks[4]?.finished_at, lintFinished, 'lint kept its result');

    const buildId = (await call('GET', `/api/v1/projects/demo/jobs/${firstJob}`, { cookie: alice })).body.tasks as { id: string }[];
    const log = (attempt: number) => call('GET', `/api/v1/projects/demo/jobs/${firstJob}/tasks/${buildId[0]?.id ?? ''}/log?attempt=${attempt}`, { cookie: alice });
    assert.equal((await log(1)).text, 'build attempt one\n');
    assert.equal((await log(2)).text, 'build attempt two\n');

    const again = await call('POST', `/api/v1/projects/demo/jobs/${firstJob}/rerun-failed`, { cookie: alice });
    assert.deepEqual([again.status, again.body.code], [409, 'nothing_to_rerun']);
  });

  it('re-runs a whole job as a new one at the same commit and ref, and stops it', async () => {
    const rerun = await call('POST', `/api/v1/projects/demo/jobs/${firstJob}/rerun`, { cookie: alice, body: {} });
    assert.equal(rerun.status, 200, JSON.stringify(rerun.body));
    const { job } = await readJob(rerun.body.job_id as string);
    assert.deepEqual([job.number, job.ref, job.head_sha, job.trigger, job.actor], [3, 'refs/heads/main', head, 'rerun', 'alice']);

    assert.equal((await call('POST', `/api/v1/projects/demo/jobs/${job.id as string}/stop`, { cookie: bob })).status, 404);
    assert.equal((await call('POST', `/api/v1/projects/demo/jobs/${job.id as string}/stop`, { cookie: alice, body: '[1]' })).status, 400);
    assert.equal((await readJob(job.id as string)).job.state, 'running');
    const stopped = await call('POST', `/api/v1/projects/demo/jobs/${job.id as string}/stop`, { cookie: alice });
    assert.equal(stopped.status, 200);
    assert.equal((stopped.body.job as Json).state, 'canceled');
    assert.equal((await call('POST', '/api/v1/projects/demo/jobs/nope/stop', { cookie: alice })).status, 404);
  });

  it('lists jobs newest first with task counts, filtered and paged, to those who may see them', async () => {
    const all = await listJobs();
    assert.deepEqual(all.jobs.map((job) => [job.number, job.state, job.trigger]), [[3, 'canceled', 'rerun'], [2, 'canceled', 'manual'], [1, 'success', 'manual']]);
    const first = all.jobs[2] as Json;
    assert.deepEqual(first.task_counts, { blocked: 0, waiting: 0, running: 0, success: 5, failure: 0, skipped: 0, canceled: 0 });
    assert.equal(typeof first.started_at, 'number');
    assert.deepEqual(Object.keys(first).sort(), ['actor', 'commit_message', 'created_at', 'finished_at', 'head_sha', 'id', 'number', 'ref', 'started_at', 'state', 'task_counts', 'trigger']);
    assert.equal(all.next_cursor, null);

    const page1 = await listJobs('?limit=2');
    assert.deepEqual(page1.jobs.map((job) => job.number), [3, 2]);
    assert.ok(page1.next_cursor !== null);
    const page2 = await listJobs(`?limit=2&cursor=${page1.next_cursor}`);
    assert.deepEqual([page2.jobs.map((job) => job.number), page2.next_cursor], [[1], null]);

    assert.deepEqual((await listJobs('?state=canceled&trigger=manual')).jobs.map((job) => job.number), [2]);
    assert.deepEqual((await listJobs('?ref=refs/heads/main')).jobs.map((job) => job.number), [3, 1]);

    assert.equal((await call('GET', '/api/v1/projects/demo/jobs', { cookie: bob })).status, 404);
    assert.equal((await call('GET', '/api/v1/projects/demo/jobs')).status, 404);
    assert.equal((await call('GET', '/api/v1/projects/demo/jobs', { cookie: root })).status, 200);
    for (const query of ['?state=done', '?limit=0', '?limit=101', '?limit=ten', '?cursor=garbage', '?cursor=eyJiZWxvdyI6LTF9', '?page=2']) {
      const answer = await call('GET', `/api/v1/projects/demo/jobs${query}`, { cookie: alice });
      assert.deepEqual([answer.status, answer.body.code], [400, 'invalid_request'], query);
    }
  });
});
