// What the web interface's job page and job list need from the reads: each task's place in the graph
// (base name, needs, matrix values) and the commit's subject line, recorded when the job is created.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { subjectOf, MAX_SUBJECT_CHARS } from '../../git/commit-subject.js';
import { git } from '../../git/test-repos.js';
import { startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = `
tasks:
  lint:
    image: x
    script: ["true"]
  test:
    image: x
    script: ["true"]
    matrix: {node: ["18", "20"], os: [linux]}
    needs: [lint]
  deploy:
    image: x
    script: ["true"]
    needs: [test]
`;

interface TaskSummary {
  name: string;
  base_name: string;
  needs: string[];
  matrix: Record<string, string>;
}

describe('job read: the task graph and the commit subject', () => {
  let service: TestService;
  let project: TestProject;
  let sha: string;
  let jobId: string;

  before(async () => {
    service = await startTestService();
    project = await service.addProject({ name: 'graph', visibility: 'public' });
    await project.commit({ '.pipeline.yml': PIPELINE });
    // A message as people write them: a subject wrapped over two lines, a blank line, a body.
    await git(project.repo, ['commit', '--quiet', '--allow-empty', '-m', 'Speed up the\nbuild cache\n\nThe body says why.']);
    sha = await git(project.repo, ['rev-parse', 'HEAD']);
    const started = await service.startJob(project, sha);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    jobId = started.body.job_id;
  });
  after(() => service.stop());

  it('gives each task summary its base name, the names it needs and its matrix values', async () => {
    const response = await service.call('GET', `/api/v1/projects/graph/jobs/${jobId}`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as { tasks: TaskSummary[] };
    const graph = body.tasks.map(({ name, base_name, needs, matrix }) => ({ name, base_name, needs, matrix }));
    assert.deepEqual(graph, [
      { name: 'lint', base_name: 'lint', needs: [], matrix: {} },
      { name: 'test:node=18,os=linux', base_name: 'test', needs: ['lint'], matrix: { node: '18', os: 'linux' } },
      { name: 'test:node=20,os=linux', base_name: 'test', needs: ['lint'], matrix: { node: '20', os: 'linux' } },
      { name: 'deploy', base_name: 'deploy', needs: ['test:node=18,os=linux', 'test:node=20,os=linux'], matrix: {} },
    ]);
  });

  it('answers the same task summaries from a cancel', async () => {
    const response = await service.call('POST', `/api/v1/projects/graph/jobs/${jobId}/cancel`, { body: { job: jobId }, secret: project.secret });
    assert.equal(response.status, 200);
    const body = (await response.json()) as { tasks: TaskSummary[] };
    assert.deepEqual(body.tasks.map((task) => task.base_name), ['lint', 'test', 'test', 'deploy']);
    assert.deepEqual(body.tasks[3]?.needs, ['test:node=18,os=linux', 'test:node=20,os=linux']);
  });

  it("records the commit's subject line (its first paragraph, joined) on the job and in the job list", async () => {
    const read = (await (await service.call('GET', `/api/v1/projects/graph/jobs/${jobId}`)).json()) as { job: { commit_message: string | null } };
    assert.equal(read.job.commit_message, 'Speed up the build cache');
    const list = (await (await service.call('GET', '/api/v1/projects/graph/jobs')).json()) as { jobs: { id: string; commit_message: string | null }[] };
    assert.deepEqual(list.jobs.map((job) => [job.id, job.commit_message]), [[jobId, 'Speed up the build cache']]);
    assert.equal((await service.deps.store.getJobById(jobId))?.commitMessage, 'Speed up the build cache');
  });

  it('keeps the subject of the commit built, not of the branch head at read time', async () => {
    await git(project.repo, ['commit', '--quiet', '--allow-empty', '-m', 'A later commit']);
    const read = (await (await service.call('GET', `/api/v1/projects/graph/jobs/${jobId}`)).json()) as { job: { commit_message: string | null } };
    assert.equal(read.job.commit_message, 'Speed up the build cache');
  });

  it('still creates the job, without a subject, for a commit object too large to read (over 64 KiB)', async () => {
    await git(project.repo, ['commit', '--quiet', '--allow-empty', '-m', `Huge message\n\n${'words '.repeat(12_000)}`]);
    const huge = await git(project.repo, ['rev-parse', 'HEAD']);
    const started = await service.startJob(project, huge);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const read = (await (await service.call('GET', `/api/v1/projects/graph/jobs/${started.body.job_id}`)).json()) as { job: { head_sha: string; commit_message: string | null } };
    assert.deepEqual([read.job.head_sha, read.job.commit_message], [huge, null]);
  });
});

describe('a commit object\'s subject', () => {
  const HEADERS = `tree ${'a'.repeat(40)}\nauthor A <a@x> 1 +0000\ncommitter A <a@x> 1 +0000\n`;
  it('is the first paragraph of the message, its lines joined by spaces', () => {
    assert.equal(subjectOf(`${HEADERS}\nFix it\n`), 'Fix it');
    assert.equal(subjectOf(`${HEADERS}\n  Wrapped\r\n  subject  \r\n\r\nbody\n`), 'Wrapped subject');
    assert.equal(subjectOf(`${HEADERS}\n\n\nAfter blank lines\n`), 'After blank lines');
  });
  it('is null for an empty message or an object without one', () => {
    assert.equal(subjectOf(`${HEADERS}\n`), null);
    assert.equal(subjectOf(`${HEADERS}\n   \n`), null);
    assert.equal(subjectOf(HEADERS), null);
  });
  it('is cut, with an ellipsis, above the limit', () => {
    const subject = subjectOf(`${HEADERS}\n${'x'.repeat(MAX_SUBJECT_CHARS + 50)}\n`);
    assert.equal(subject?.length, MAX_SUBJECT_CHARS);
    assert.ok(subject?.endsWith('…'));
  });
});
