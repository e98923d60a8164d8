// `conveyor dev` as a process in an empty directory: the demo job runs on the local shell worker to
// success; SIGTERM stops the worker and the server; a second start reuses what the first made.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openPipeline, readPipelineConfig } from '@conveyor/pipeline';
import { send, sessionCookie } from '../serve/testing/http.js';
import { startCli } from '../testing/run-cli.js';

const PASSWORD = 'dev test password 42';
const JOB_TIME_LIMIT_MS = 90_000;
/** Unset for the child: `conveyor dev` must use ./data and its own port 0, whatever this process has. */
const BASE_ENV = { CONVEYOR_PORT: '0', CONVEYOR_DATA_PATH: '', CONVEYOR_PUBLIC_URL: '', PIPELINE_LOG_LEVEL: 'warn' };

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

async function startDev(cwd: string, env: NodeJS.ProcessEnv, workerPids: number[]): Promise<Started> {
  const started = await startCli(['dev'], { ...BASE_ENV, ...env }, /^Listening on /, { cwd, timeoutMs: 60_000 });
  workerPids.push(Number(/pid (\d+)/.exec(started.output())?.[1]));
  return { child: started.child, url: /Listening on (http:\/\/\S+)/.exec(started.line)?.[1] ?? '', output: started.output };
}

/** SIGTERM, and the exit status ('still running' when it has not exited within 30 s). */
async function stopDev(dev: Started): Promise<number | null | 'still running'> {
  if (dev.child.exitCode !== null) return dev.child.exitCode;
  const exited = new Promise<number | null>((resolve) => dev.child.once('exit', resolve));
  dev.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), 30_000)));
  const result = await Promise.race([exited, late]);
  clearTimeout(timer);
  return result;
}

async function signIn(url: string, password: string): Promise<{ status: number; cookie: string | null }> {
  const answer = await send(url, 'POST', '/api/v1/login/password', { 'content-type': 'application/json' }, JSON.stringify({ identifier: 'admin', password }));
  return { status: answer.status, cookie: answer.status === 200 ? sessionCookie(answer, 'auth_session_system') : null };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

interface TaskSummary { id: string; name: string; state: string }

async function waitForFinalJob(url: string, path: string, cookie: string): Promise<{ job: { state: string; trigger: string; actor: string }; tasks: TaskSummary[] }> {
  const deadline = Date.now() + JOB_TIME_LIMIT_MS;
  for (;;) {
    const answer = await send(url, 'GET', path, { cookie });
    assert.equal(answer.status, 200, answer.text);
    const read = answer.json() as { job: { state: string; trigger: string; actor: string }; tasks: TaskSummary[] };
    if (read.job.state !== 'running') return read;
    if (Date.now() > deadline) assert.fail(`the demo job is still running after ${JOB_TIME_LIMIT_MS} ms: ${answer.text}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('conveyor dev', { timeout: 240_000 }, () => {
  let dir: string;
  const running: Started[] = [];
  /** Killed at the end too: a failed test must leave no worker behind. */
  const workerPids: number[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-dev-'));
  });
  after(async () => {
    for (const dev of running) dev.child.kill('SIGKILL');
    for (const pid of workerPids) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('runs the demo job to success on its shell worker, masks the secret, and stops everything on SIGTERM', async () => {
    const dev = await startDev(dir, { CONVEYOR_ADMIN_PASSWORD: PASSWORD }, workerPids);
    running.push(dev);
    const output = dev.output();
    assert.match(dev.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.doesNotMatch(output, new RegExp(PASSWORD), 'a given password is never printed');
    assert.match(output, /CONVEYOR_ADMIN_PASSWORD/);
    assert.match(output, new RegExp(`job #1 started: ${dev.url}/projects/demo/jobs/1 `), 'the web page of the job');
    const jobPath = new RegExp(`\\(API: ${dev.url}(/api/v1/projects/demo/jobs/[^)\\s]+)\\)`).exec(output)?.[1];
    assert.ok(jobPath !== undefined, output);
    const workerPid = Number(/pid (\d+)/.exec(output)?.[1]);
    assert.ok(workerPid > 0 && isRunning(workerPid), output);

    // Files under ./data of the working directory, the worker's own ones private.
    const data = join(dir, 'data');
    assert.equal(statSync(join(data, 'dev', 'worker-token')).mode & 0o777, 0o600);
    assert.equal(statSync(join(data, 'dev', 'work')).mode & 0o777, 0o700);
    for (const file of ['pipeline.db', 'signin.db']) assert.ok(statSync(join(data, file)).isFile(), file);

    assert.equal((await send(dev.url, 'GET', jobPath)).status, 404, 'the demo project is private');
    assert.equal((await signIn(dev.url, 'not the password')).status, 401);
    const { cookie } = await signIn(dev.url, PASSWORD);
    assert.ok(cookie !== null);
    const read = await waitForFinalJob(dev.url, jobPath, cookie);
    assert.equal(read.job.state, 'success', JSON.stringify(read));
    assert.equal(read.job.trigger, 'dev');
    assert.equal(read.job.actor, 'admin');
    assert.deepEqual(
      read.tasks.map((task) => [task.name, task.state]),
      [['build', 'success'], ['test:shard=1', 'success'], ['test:shard=2', 'success'], ['deploy', 'success']],
    );

    const build = read.tasks.find((task) => task.name === 'build');
    const taskRead = (await send(dev.url, 'GET', `/api/v1/tasks/${build?.id ?? ''}`, { cookie })).json() as { artifacts: { id: string; path: string }[] };
    assert.deepEqual(taskRead.artifacts.map((artifact) => artifact.path), ['dist/hello.txt']);
    const download = await send(dev.url, 'GET', `${jobPath}/tasks/${build?.id ?? ''}/artifacts/${taskRead.artifacts[0]?.id ?? ''}`, { cookie });
    assert.equal(download.status, 200);
    assert.match(download.text, /^hello from conveyor dev, built at \d{4}-/);

    const deploy = read.tasks.find((task) => task.name === 'deploy');
    const log = await send(dev.url, 'GET', `${jobPath}/tasks/${deploy?.id ?? ''}/log`, { cookie });
    assert.equal(log.status, 200);
    assert.match(log.text, /deploying with token \*\*\*$/m);

    assert.equal(await stopDev(dev), 0, dev.output());
    assert.match(dev.output(), /Stopped/);
    assert.equal(isRunning(workerPid), false, 'the worker is gone with dev');

    // The secret's value, read from the stored variable once the server is gone, is not in the log.
    const pipeline = openPipeline(readPipelineConfig({ PIPELINE_DATABASE_PATH: join(data, 'pipeline.db'), PIPELINE_DATA_PATH: join(data, 'pipeline') }));
    try {
      const project = await pipeline.store.findProject('demo');
      const variables = await pipeline.store.listVariables(project?.id ?? '');
      const secret = variables.find((variable) => variable.name === 'DEMO_DEPLOY_TOKEN');
      assert.equal(secret?.secret, true);
      assert.ok((secret?.value.length ?? 0) >= 8);
      assert.ok(!log.text.includes(secret?.value ?? ''), 'the secret is masked in the log');
    } finally {
      await pipeline.store.close();
    }
  });

  it('a second start reuses the administrator, its password, the worker token and the demo, with no new job', async () => {
    const tokenBefore = readFileSync(join(dir, 'data', 'dev', 'worker-token'), 'utf8');
    // Another password in the variable changes nothing: the administrator exists.
    const dev = await startDev(dir, { CONVEYOR_ADMIN_PASSWORD: 'another password entirely' }, workerPids);
    running.push(dev);
    const output = dev.output();
    assert.match(output, /not shown again/);
    assert.doesNotMatch(output, /generated/);
    assert.doesNotMatch(output, /job #\d+ started/);
    assert.match(output, /Worker 'dev-worker' started/);
    assert.equal(readFileSync(join(dir, 'data', 'dev', 'worker-token'), 'utf8'), tokenBefore);

    assert.equal((await signIn(dev.url, 'another password entirely')).status, 401);
    const { cookie } = await signIn(dev.url, PASSWORD);
    assert.ok(cookie !== null);
    const projects = (await send(dev.url, 'GET', '/api/v1/projects', { cookie })).json() as { projects: { name: string }[] };
    assert.deepEqual(projects.projects.map((project) => project.name), ['demo']);
    const jobs = (await send(dev.url, 'GET', '/api/v1/projects/demo/jobs', { cookie })).json() as { jobs: { number: number }[] };
    assert.deepEqual(jobs.jobs.map((job) => job.number), [1]);

    // The start command it prints works with the reused worker.
    const start = await send(dev.url, 'POST', '/api/v1/projects/demo/jobs/start', { cookie, origin: dev.url, 'content-type': 'application/json' }, JSON.stringify({ ref: 'main' }));
    assert.equal(start.status, 200, start.text);
    assert.equal(await stopDev(dev), 0, dev.output());
  });

  it('generates a password of 20 or more characters, prints it once, and it signs in', async () => {
    const fresh = join(dir, 'fresh');
    await mkdir(fresh);
    const dev = await startDev(fresh, { CONVEYOR_ADMIN_PASSWORD: '' }, workerPids);
    running.push(dev);
    const password = /Password: (\S+) {2}\(generated/.exec(dev.output())?.[1] ?? '';
    assert.ok(password.length >= 20, dev.output());
    assert.equal((await signIn(dev.url, password)).status, 200);
    assert.equal(await stopDev(dev), 0, dev.output());
  });
});
