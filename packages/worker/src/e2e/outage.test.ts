import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { commitFiles, makeRepo } from '../testing/git.js';
import { byName, findFreePort, Stack, type Proc } from './stack.js';

// A lost server never crashes the worker: it keeps the log and the outcome and delivers them when
// the server is back within the lease; past the lease it drops them and says so. The service is
// killed outright (SIGKILL) and restarted on the same port and database.
const INTERVAL = 3; // seconds: the lease is 9 s
const LOG_LIMIT = 1024 * 1024;
let stack: Stack;
let worker: Proc;
let repo: string;
let project: { id: string; trigger_secret: string };

before(async () => {
  stack = await Stack.start({ heartbeatInterval: INTERVAL, port: await findFreePort(), maxLogBytes: LOG_LIMIT });
  repo = join(stack.dir, 'repo');
  await makeRepo(repo, { 'README.md': 'outage\n' });
  project = await stack.createProject('e2e-outage', repo);
  worker = await stack.startWorker('survivor', ['--poll-wait', '1']);
});

after(async () => {
  await stack.stop();
});

async function runPipeline(yaml: string): Promise<string> {
  return stack.createJob(project, await commitFiles(repo, { '.pipeline.yml': yaml }, 'pipeline'));
}

test('an outage shorter than the lease: the log and the outcome are delivered when the server is back', async () => {
  const job = await runPipeline(`
image: none
tasks:
  steady:
    script:
      - echo before
      - sleep 2
      - seq 1 20000
      - echo after
`);
  const steady = byName(await stack.readJob(project.id, job)).steady!;
  await stack.waitForTask(steady.id, (read) => read.task.log_size > 0);
  await stack.restartServer(3_000);
  const read = await stack.waitForJob(project.id, job, 30_000);
  assert.equal(byName(read).steady?.state, 'success', worker.output);
  const numbers = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join('');
  const log = (await stack.readLog(project.id, job, steady.id)).toString();
  assert.equal(log, `$ echo before\nbefore\n$ sleep 2\n$ seq 1 20000\n${numbers}$ echo after\nafter\n`);
  assert.match(worker.output, /task steady \(\S+\) success: exit_code=0 .* state=success/);
  assert.doesNotMatch(worker.output, /lost/);
});

test('an outage longer than the lease: the worker drops the task, says so, and keeps working', async () => {
  const job = await runPipeline(`
image: none
tasks:
  doomed:
    script:
      - echo started
      - sleep 30
`);
  const doomed = byName(await stack.readJob(project.id, job)).doomed!;
  await stack.waitForTask(doomed.id, (read) => read.task.log_size > 0);
  await stack.restartServer(4 * INTERVAL * 1000);
  await worker.waitFor(/task doomed \(\S+\) lost after [\d.]+s: its lease passed while the server was unreachable; dropped its log and outcome/);
  const read = await stack.waitForJob(project.id, job, 30_000);
  const task = await stack.readTask(byName(read).doomed!.id);
  assert.deepEqual([task.task.state, task.task.error], ['failure', 'worker lost']);
  assert.equal(worker.child.exitCode, null, 'the worker is still running');

  const next = await runPipeline(`
image: none
tasks:
  afterwards:
    script:
      - echo still here
`);
  assert.equal(byName(await stack.waitForJob(project.id, next, 30_000)).afterwards?.state, 'success');
});

test('a log past the size limit of the service is cut there, and the task still completes', async () => {
  const job = await runPipeline(`
image: none
tasks:
  verbose:
    script:
      - seq 1 500000
      - echo done
`);
  const read = await stack.waitForJob(project.id, job, 30_000);
  const verbose = byName(read).verbose!;
  assert.equal(verbose.state, 'success', worker.output);
  const { task } = await stack.readTask(verbose.id);
  assert.ok(task.log_size <= LOG_LIMIT && task.log_size > LOG_LIMIT - 64 * 1024, `stored ${task.log_size}`);
  const log = (await stack.readLog(project.id, job, verbose.id)).toString();
  assert.ok(log.startsWith('$ seq 1 500000\n1\n2\n3\n'));
  await worker.waitFor(/task verbose \(\S+\): the server takes no more log after \d+ bytes; the rest is dropped/);
  await worker.waitFor(/task verbose \(\S+\) success: exit_code=0/);
});
