import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FIXTURE_SHA, loadWebhookFixtures, prepareDelivery } from '../../testing/fixtures.js';
import { createProject } from '../../domain/projects.js';
import { sign, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = `
tasks:
  build:
    image: alpine
    script: [echo build]
  test:
    image: alpine
    needs: [build]
    matrix: {node: ["20", "22"]}
    script: [echo test]
`;

describe('starting jobs: POST /projects/:project/jobs and /trigger', () => {
  let service: TestService;
  let demo: TestProject;
  let sha: string;

  before(async () => {
    service = await startTestService();
    demo = await service.addProject({ name: 'demo', pipeline: PIPELINE });
    sha = await demo.commit({ 'README.md': 'hello\n' });
  });
  after(() => service.stop());

  /** Jobs stored for the project, by walking job numbers (nothing else may have been stored). */
  async function jobCount(project: TestProject): Promise<number> {
    let count = 0;
    while ((await service.deps.store.findJob(project.project.id, String(count + 1))) !== null) count += 1;
    return count;
  }

  it('creates a job with its tasks and answers {status, job_id, tasks}', async () => {
    const before = await jobCount(demo);
    const { status, body } = await service.startJob(demo, sha);
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body).sort(), ['job_id', 'status', 'tasks']);
    assert.equal((body as unknown as { status: string }).status, 'created');
    assert.equal(body.tasks, 3);
    assert.match(body.job_id, /^[A-Za-z0-9][A-Za-z0-9_-]{22}$/);
    assert.equal(await jobCount(demo), before + 1);
    const job = await service.deps.store.getJobById(body.job_id);
    assert.equal(job?.trigger, 'api');
    assert.equal(job?.headSha, sha);
    assert.equal(job?.state, 'running');
    const tasks = await service.deps.store.listTasksOfJob(body.job_id);
    assert.deepEqual(
      tasks.map((task) => [task.name, task.state]),
      [
        ['build', 'waiting'],
        ['test:node=20', 'blocked'],
        ['test:node=22', 'blocked'],
      ],
    );
  });

  it('numbers jobs per project and records trigger, actor, base and ref as given', async () => {
    const other = await service.addProject({ pipeline: PIPELINE });
    const otherSha = await other.commit({ 'a.txt': 'a' });
    const first = await service.startJob(other, otherSha, { trigger: 'manual', actor: 'alice', base: null, ref: 'refs/tags/v1' });
    const second = await service.startJob(other, otherSha);
    assert.equal(first.status, 200);
    const job1 = await service.deps.store.getJobById(first.body.job_id);
    const job2 = await service.deps.store.getJobById(second.body.job_id);
    assert.equal(job1?.number, 1);
    assert.equal(job2?.number, 2);
    assert.equal(job1?.trigger, 'manual');
    assert.equal(job1?.actor, 'alice');
    assert.equal(job1?.ref, 'refs/tags/v1');
    assert.ok(((await service.deps.store.findJob(demo.project.id, '1'))?.number ?? 0) >= 1, 'demo keeps its own numbering');
  });

  it('accepts the project id as well as its name in the path', async () => {
    const body = { sha };
    const response = await service.call('POST', `/api/v1/projects/${demo.project.id}/jobs`, { body, secret: demo.secret });
    assert.equal(response.status, 200);
  });

  it('checks in order: unknown project 404, then signature 401, then disabled 409, then 400, then 422', async () => {
    const body = JSON.stringify({ sha });
    const start = await jobCount(demo);
    // Unknown project wins over everything, even a malformed unsigned body.
    let response = await service.call('POST', '/api/v1/projects/nope/jobs', { body: '{bad' });
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), { error: 'not found', code: 'not_found' });
    // A malformed body without a signature is 401, not 400.
    response = await service.call('POST', '/api/v1/projects/demo/jobs', { body: '{bad' });
    assert.equal(response.status, 401);
    assert.equal(typeof ((await response.json()) as { error: string }).error, 'string');
    response = await service.call('POST', '/api/v1/projects/demo/jobs', { body, headers: { 'x-hub-signature-256': sign(body, 'wrong') } });
    assert.equal(response.status, 401);
    response = await service.call('POST', '/api/v1/projects/demo/jobs', { body, headers: { 'x-hub-signature-256': sign('{}', demo.secret) } });
    assert.equal(response.status, 401, 'a signature of other bytes');
    response = await service.call('POST', '/api/v1/projects/demo/jobs', { body, headers: { 'x-hub-signature-256': 'garbage' } });
    assert.equal(response.status, 401);

    const disabled = await service.addProject({ pipeline: PIPELINE });
    const disabledSha = await disabled.commit({ 'b.txt': 'b' });
    await service.deps.store.updateProject(disabled.project.id, { enabled: false }, 0);
    const disabledBody = JSON.stringify({ sha: disabledSha });
    response = await service.call('POST', `/api/v1/projects/${disabled.project.name}/jobs`, { body: disabledBody });
    assert.equal(response.status, 401, 'unsigned on a disabled project is still 401');
    response = await service.call('POST', `/api/v1/projects/${disabled.project.name}/jobs`, { body: '{bad', secret: disabled.secret });
    assert.equal(response.status, 409, 'disabled before malformed');
    response = await service.call('POST', `/api/v1/projects/${disabled.project.name}/trigger`, { body: disabledBody, secret: disabled.secret });
    assert.equal(response.status, 409);
    assert.equal(await jobCount(disabled), 0);
    assert.equal(await jobCount(demo), start, 'nothing stored');
  });

  it('refuses bad bodies with 400 and stores nothing', async () => {
    const start = await jobCount(demo);
    const cases: [string, string][] = [
      ['malformed JSON', '{"sha": '],
      ['missing sha', JSON.stringify({ ref: 'refs/heads/main' })],
      ['short sha', JSON.stringify({ sha: sha.slice(0, 12) })],
      ['upper-case sha', JSON.stringify({ sha: sha.toUpperCase() })],
      ['sha not in the repository', JSON.stringify({ sha: 'f'.repeat(40) })],
      ['sha of wrong type', JSON.stringify({ sha: 42 })],
      ['ref of wrong type', JSON.stringify({ sha, ref: 5 })],
      ['trigger of wrong type', JSON.stringify({ sha, trigger: ['x'] })],
      ['base of wrong type', JSON.stringify({ sha, base: 7 })],
      ['a pipeline from the caller', JSON.stringify({ sha, pipeline: { tasks: {} } })],
      ['a JSON array', JSON.stringify([sha])],
      ['empty body', ''],
    ];
    for (const [label, body] of cases) {
      const response = await service.call('POST', '/api/v1/projects/demo/jobs', { body, secret: demo.secret });
      assert.equal(response.status, 400, label);
      const answer = (await response.json()) as { error: string };
      assert.equal(typeof answer.error, 'string', label);
      assert.ok(answer.error.length > 0, label);
    }
    assert.equal(await jobCount(demo), start);
  });

  it('refuses an oversized body with 413', async () => {
    const body = JSON.stringify({ sha, actor: 'x'.repeat(2 * 1024 * 1024) });
    const response = await service.call('POST', '/api/v1/projects/demo/jobs', { body, secret: demo.secret });
    assert.equal(response.status, 413);
    assert.equal(typeof ((await response.json()) as { error: string }).error, 'string');
  });

  it('answers 422 with every problem of an invalid pipeline, and for a missing pipeline file', async () => {
    const start = await jobCount(demo);
    const badSha = await demo.commit({
      '.pipeline.yml': 'tasks:\n  a:\n    image: x\n    script: [echo]\n    needs: [nope]\n    timeout: forever\n',
    });
    const { status, body } = await service.startJob(demo, badSha);
    assert.equal(status, 422);
    const problems = (body as unknown as { problems: { path: string; message: string }[] }).problems;
    assert.deepEqual(problems.map((problem) => problem.path).sort(), ['tasks.a.needs[0]', 'tasks.a.timeout']);
    assert.equal(typeof body.error, 'string');

    const bare = await service.addProject({});
    const bareSha = await bare.commit({ 'x.txt': 'no pipeline here' });
    const missing = await service.startJob(bare, bareSha);
    assert.equal(missing.status, 422);
    assert.deepEqual((missing.body as unknown as { problems: { path: string }[] }).problems.map((p) => p.path), ['.pipeline.yml']);
    assert.equal(await jobCount(demo), start);
    assert.equal(await jobCount(bare), 0);
    await demo.commit({ '.pipeline.yml': PIPELINE });
  });

  it('takes the normalised push shape on /trigger, recorded as trigger push', async () => {
    const body = { sha, base: '', ref: 'refs/heads/feature', actor: 'bob' };
    const response = await service.call('POST', '/api/v1/projects/demo/trigger', { body, secret: demo.secret });
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { status: string; job_id: string; tasks: number };
    assert.equal(answer.status, 'created');
    const job = await service.deps.store.getJobById(answer.job_id);
    assert.equal(job?.trigger, 'push');
    assert.equal(job?.actor, 'bob');
    assert.equal(job?.ref, 'refs/heads/feature');
  });

  it('accepts the plain secret in X-Git-Token and X-Gitlab-Token on /trigger only', async () => {
    const body = JSON.stringify({ sha, base: '', ref: 'refs/heads/main', actor: 'carol' });
    for (const header of ['x-git-token', 'x-gitlab-token']) {
      let response = await service.call('POST', '/api/v1/projects/demo/trigger', { body, headers: { [header]: demo.secret } });
      assert.equal(response.status, 200, header);
      response = await service.call('POST', '/api/v1/projects/demo/trigger', { body, headers: { [header]: `${demo.secret}x` } });
      assert.equal(response.status, 401, `${header} wrong`);
      response = await service.call('POST', '/api/v1/projects/demo/jobs', { body: JSON.stringify({ sha }), headers: { [header]: demo.secret } });
      assert.equal(response.status, 401, `${header} does not open /jobs`);
    }
  });

  it('verifies the signature over the exact bytes received, whitespace and all', async () => {
    const body = `{ "sha" :   "${sha}",\n  "ref": "refs/heads/main" }`;
    let response = await service.call('POST', '/api/v1/projects/demo/jobs', { body, secret: demo.secret });
    assert.equal(response.status, 200);
    response = await service.call('POST', '/api/v1/projects/demo/jobs', {
      body,
      headers: { 'x-hub-signature-256': sign(JSON.stringify(JSON.parse(body)), demo.secret) },
    });
    assert.equal(response.status, 401, 'a signature of the re-serialised body does not match');
  });

  it('ignores a normalised branch deletion with 200 and creates nothing', async () => {
    const start = await jobCount(demo);
    const body = { sha: '0'.repeat(40), base: sha, ref: 'refs/heads/gone', actor: 'dave' };
    const response = await service.call('POST', '/api/v1/projects/demo/trigger', { body, secret: demo.secret });
    assert.equal(response.status, 200);
    assert.equal(((await response.json()) as { status: string }).status, 'ignored');
    assert.equal(await jobCount(demo), start);
  });

  for (const fixture of loadWebhookFixtures()) {
    it(`handles the ${fixture.name} delivery: ${fixture.expect.kind}`, async () => {
      const start = await jobCount(demo);
      const { body, headers } = prepareDelivery(fixture, sha, demo.secret);
      const response = await service.call('POST', '/api/v1/projects/demo/trigger', { body, headers });
      assert.equal(response.status, 200);
      const answer = (await response.json()) as { status: string; job_id?: string };
      if (fixture.expect.kind === 'ignored') {
        assert.equal(answer.status, 'ignored');
        assert.equal(await jobCount(demo), start);
        return;
      }
      assert.equal(answer.status, 'created');
      const job = await service.deps.store.getJobById(answer.job_id ?? '');
      assert.equal(job?.headSha, fixture.expect.sha === FIXTURE_SHA ? sha : fixture.expect.sha);
      assert.equal(job?.ref, fixture.expect.ref);
      assert.equal(job?.actor, fixture.expect.actor);
      assert.equal(job?.trigger, 'push');
      // The same delivery with a wrong secret is refused.
      const forged = prepareDelivery(fixture, sha, 'not-the-secret');
      const refused = await service.call('POST', '/api/v1/projects/demo/trigger', { body: forged.body, headers: forged.headers });
      assert.equal(refused.status, 401);
    });
  }

  it('mirrors a URL repository and fetches a commit it does not have yet', async () => {
    const origin = await service.addProject({ pipeline: PIPELINE });
    const first = await origin.commit({ 'v.txt': '1' });
    const project = await createProject(service.deps, { name: 'mirrored', repo: `file://${origin.repo}` });
    const mirrored: TestProject = { project, repo: project.repo, secret: project.triggerSecret, commit: origin.commit };
    assert.equal((await service.startJob(mirrored, first)).status, 200);
    const second = await origin.commit({ 'v.txt': '2' });
    assert.equal((await service.startJob(mirrored, second)).status, 200, 'fetched on demand');
    const missing = await service.startJob(mirrored, 'e'.repeat(40));
    assert.equal(missing.status, 400, 'still missing after a fetch: no usable commit');
  });

  it('cancels a job with the trigger secret: waiting and blocked tasks become canceled', async () => {
    const { body } = await service.startJob(demo, sha);
    const path = `/api/v1/projects/demo/jobs/${body.job_id}/cancel`;
    assert.equal((await service.call('POST', path)).status, 401);
    assert.equal((await service.call('POST', '/api/v1/projects/demo/jobs/unknown/cancel', { body: { job: 'unknown' }, secret: demo.secret })).status, 404);
    const response = await service.call('POST', path, { body: { job: body.job_id }, secret: demo.secret });
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { job: { state: string }; tasks: { state: string }[] };
    assert.equal(answer.job.state, 'canceled');
    assert.deepEqual(answer.tasks.map((task) => task.state), ['canceled', 'canceled', 'canceled']);
  });
});
