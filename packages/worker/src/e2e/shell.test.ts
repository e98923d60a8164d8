import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commitFiles, makeRepo } from '../testing/git.js';
import { FlakyProxy, seededRandom } from '@conveyor/kit/testing';
import { byName, CONVEYOR_BIN, Proc, Stack } from './stack.js';

// End to end: the real pipeline service, a real git repository, real `conveyor worker` processes
// with the shell executor. One service for the file; each test has its own commit and job.
let stack: Stack;
let repo: string;
let project: { id: string; trigger_secret: string };
const SECRET = 'zq-secret-9f8e7d6c5b4a';

before(async () => {
  stack = await Stack.start({ heartbeatInterval: 1 });
  repo = join(stack.dir, 'repo');
  await makeRepo(repo, { 'README.md': 'e2e\n' });
  project = await stack.createProject('e2e-shell', repo);
  await stack.setSecret(project.id, 'SECRET_TOKEN', SECRET);
});

after(async () => {
  await stack.stop();
});

// Prints the secret in two writes 0.7 s apart, so its halves reach the server in different appends.
const SPLIT_SCRIPT = `printf 'split: %s' "$(echo "$SECRET_TOKEN" | cut -c1-10)"; sleep 0.7; printf '%s\\n' "$(echo "$SECRET_TOKEN" | cut -c11-)"\n`;

async function runPipeline(yaml: string): Promise<string> {
  const sha = await commitFiles(repo, { '.pipeline.yml': yaml, 'split.sh': SPLIT_SCRIPT }, 'pipeline');
  return stack.createJob(project, sha);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

test('a matrix with needs, a retried failure with skipped dependents, allow_failure, artifacts and a masked secret', async () => {
  const worker = await stack.startWorker('general', ['--concurrency', '4', '--verbose']);
  const job = await runPipeline(`
image: localhost/conveyor-test:latest
tasks:
  build:
    matrix:
      variant: [a, b]
    script:
      - mkdir -p out
      - echo "built $variant" > out/$variant.txt
      - head -c 1048576 /dev/urandom > out/random-$variant.bin
      - sha256sum out/random-$variant.bin
    artifacts: ["out/**"]
  test:
    needs: [build]
    script:
      - echo "testing after build"
  flaky:
    retries: 1
    script:
      - echo "flaky runs"
      - exit 3
  after-flaky:
    needs: [flaky]
    script:
      - echo never
  optional:
    allow_failure: true
    script:
      - exit 4
  secret:
    script:
      - echo "the secret is $SECRET_TOKEN"
      - sh split.sh
`);
  const read = await stack.waitForJob(project.id, job);
  const tasks = byName(read);
  assert.equal(read.job.state, 'failure');
  assert.equal(tasks['build:variant=a']?.state, 'success');
  assert.equal(tasks['build:variant=b']?.state, 'success');
  assert.equal(tasks.test?.state, 'success');
  assert.deepEqual([tasks.flaky?.state, tasks.flaky?.exit_code, tasks.flaky?.attempt], ['failure', 3, 2]);
  assert.equal(tasks['after-flaky']?.state, 'skipped');
  assert.deepEqual([tasks.optional?.state, tasks.optional?.exit_code], ['failure', 4]);
  assert.equal(tasks.secret?.state, 'success');

  for (const variant of ['a', 'b']) {
    const id = tasks[`build:variant=${variant}`]!.id;
    const { artifacts } = await stack.readTask(id);
    assert.deepEqual(artifacts.map((a) => a.path).sort(), [`out/${variant}.txt`, `out/random-${variant}.bin`]);
    const log = (await stack.readLog(project.id, job, id)).toString();
    for (const artifact of artifacts) {
      const bytes = await stack.download(artifact.url);
      assert.equal(sha256(bytes), artifact.sha256);
      assert.equal(bytes.length, artifact.size);
      if (artifact.path.endsWith('.txt')) assert.equal(bytes.toString(), `built ${variant}\n`);
      else assert.ok(log.includes(`${artifact.sha256}  out/random-${variant}.bin`), 'the sha256 the script computed matches the download');
    }
  }

  const secretLog = (await stack.readLog(project.id, job, tasks.secret!.id)).toString();
  assert.equal(
    secretLog,
    '$ echo "the secret is $SECRET_TOKEN"\nthe secret is ***\n$ sh split.sh\nsplit: ***\n',
  );
  const flakyFirst = (await stack.readLog(project.id, job, tasks.flaky!.id, 1)).toString();
  assert.equal(flakyFirst, '$ echo "flaky runs"\nflaky runs\n$ exit 3\n');
  assert.match(worker.output, /claimed task flaky \(\S+\) attempt 2/);
  assert.match(worker.output, /task secret \(\S+\) success: exit_code=0 duration=[\d.]+s log=\d+B artifacts=0 state=success/);
  assert.match(worker.output, /task build:variant=a \(\S+\) success: exit_code=0 .* artifacts=2/);
  // --verbose shows the protocol and the payload's shape, never the token or a secret.
  assert.match(worker.output, /debug: task \S+: image=localhost\/conveyor-test:latest workdir=\/workspace timeout=3600s heartbeat=1s lines=\d+ env=\d+ masked=1 /);
  assert.match(worker.output, /debug: POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/tasks\/\S+\/log -> 200/);
  const token = (await readFile(join(stack.dir, 'general.token'), 'utf8')).trim();
  assert.ok(!worker.output.includes(token), 'the token never appears');
  assert.ok(!worker.output.includes(SECRET), 'the secret never appears');
});

test('cancellation ends a running task and a timeout ends a slow one', async () => {
  const job = await runPipeline(`
image: localhost/conveyor-test:latest
tasks:
  long:
    script:
      - echo ready
      - sleep 300
`);
  const timeoutJob = await runPipeline(`
image: localhost/conveyor-test:latest
tasks:
  slow:
    timeout: 2
    script:
      - echo slow start
      - sleep 300
`);
  const first = await stack.readJob(project.id, job);
  const long = byName(first).long!;
  await stack.waitForTask(long.id, (read) => read.task.state === 'running' && read.task.log_size > 0);
  const started = Date.now();
  await stack.cancelJob(project, job);
  const read = await stack.waitForJob(project.id, job, 30_000);
  assert.ok(Date.now() - started < 10_000, 'the cancel took effect within seconds');
  const tasks = byName(read);
  const longRead = await stack.readTask(tasks.long!.id);
  assert.deepEqual([longRead.task.state, longRead.task.error], ['canceled', 'canceled']);
  const slow = byName(await stack.waitForJob(project.id, timeoutJob, 30_000)).slow!;
  const slowRead = await stack.readTask(slow.id);
  assert.deepEqual([slowRead.task.state, slowRead.task.error, slowRead.task.exit_code], ['failure', 'timeout', null]);
  assert.equal((await stack.readLog(project.id, job, tasks.long!.id)).toString(), '$ echo ready\nready\n$ sleep 300\n');
  const worker = stack.workers[0]!;
  await worker.waitFor(/task long \(\S+\) canceled: exit_code=- /);
  await worker.waitFor(/task slow \(\S+\) timeout: exit_code=- /);
  await worker.stop();
});

test('a worker killed with SIGKILL mid-task: the task is requeued after the lease and finished by a second worker', async () => {
  const job = await runPipeline(`
image: localhost/conveyor-test:latest
tasks:
  survivor:
    retries: 1
    requires: [kill-test]
    script:
      - echo "running on attempt"
      - sleep 2
      - echo finished
`);
  const first = await stack.startWorker('doomed', ['--features', 'kill-test']);
  await first.waitFor(/claimed task survivor \(\S+\) attempt 1/);
  await stack.waitForTask(byName(await stack.readJob(project.id, job)).survivor!.id, (t) => t.task.log_size > 0);
  first.child.kill('SIGKILL');
  await first.exited;
  // The killed worker's task directory is left behind; the next worker on that work directory removes it.
  const leftovers = await readdir(join(stack.dir, 'work-doomed'));
  assert.equal(leftovers.length, 1);
  const second = await stack.startWorker('rescuer', ['--features', 'kill-test', '--keep-work', '--work-dir', join(stack.dir, 'work-doomed')]);
  assert.match(second.output, /removed 1 task directory left in \S+work-doomed by an earlier run/);
  const read = await stack.waitForJob(project.id, job, 30_000);
  const survivor = byName(read).survivor!;
  assert.deepEqual([read.job.state, survivor.state, survivor.attempt, survivor.worker_name], ['success', 'success', 2, 'rescuer']);
  assert.equal((await stack.readTask(survivor.id)).task.error, null);
  assert.equal((await stack.readLog(project.id, job, survivor.id)).toString(), '$ echo "running on attempt"\nrunning on attempt\n$ sleep 2\n$ echo finished\nfinished\n');
  assert.match(second.output, /claimed task survivor \(\S+\) attempt 2/);
  await second.stop();
  // --keep-work kept the task's directory (private: 0700, files 0600); without it (the general worker) nothing is left.
  const kept = await readdir(join(stack.dir, 'work-doomed'));
  assert.equal(kept.length, 1);
  assert.match(kept[0]!, /^task-\S+-2-[0-9a-f]{6}$/);
  const taskDir = join(stack.dir, 'work-doomed', kept[0]!);
  assert.equal(await readFile(join(taskDir, 'src', 'README.md'), 'utf8'), 'e2e\n');
  const modes = await Promise.all(['', 'src', 'script', 'script/script.sh', 'log'].map(async (path) => ((await stat(join(taskDir, path))).mode & 0o777).toString(8)));
  assert.deepEqual(modes, ['700', '700', '700', '600', '600']);
  assert.deepEqual(await readdir(join(stack.dir, 'work-general')), []);
});

test('a log reaches the server whole and in order through a proxy that drops connections at random', async () => {
  const target = new URL(stack.url);
  const proxy = new FlakyProxy({ host: target.hostname, port: Number(target.port) }, seededRandom(7), 1_500_000);
  const port = await proxy.start();
  try {
    const job = await runPipeline(`
image: localhost/conveyor-test:latest
tasks:
  chatty:
    requires: [proxy-test]
    script:
      - seq 1 400000
      - echo "tail line"
`);
    const worker = await stack.startWorker('behind-proxy', ['--features', 'proxy-test', '--poll-wait', '1', '--verbose'], `http://127.0.0.1:${port}`);
    const read = await stack.waitForJob(project.id, job, 90_000);
    const chatty = byName(read).chatty!;
    assert.equal(chatty.state, 'success', worker.output);
    const numbers = Array.from({ length: 400_000 }, (_, i) => `${i + 1}\n`).join('');
    const expected = `$ seq 1 400000\n${numbers}$ echo "tail line"\ntail line\n`;
    const stored = await stack.readLog(project.id, job, chatty.id);
    assert.equal(stored.length, Buffer.byteLength(expected));
    assert.ok(stored.equals(Buffer.from(expected)), 'the stored log equals the output byte for byte');
    assert.ok(proxy.drops >= 3, `the proxy dropped ${proxy.drops} of ${proxy.connections} connections`);
    await worker.stop();
  } finally {
    await proxy.stop();
  }
});

test('SIGTERM lets a running task finish within the grace period, then reports it failed as worker shutdown', async () => {
  const job = await runPipeline(`
image: localhost/conveyor-test:latest
tasks:
  quick:
    requires: [grace-test]
    script:
      - sleep 1
      - echo quick done
  endless:
    requires: [grace-test]
    script:
      - sleep 300
`);
  const worker = await stack.startWorker('graceful', ['--features', 'grace-test', '--concurrency', '2', '--grace', '3']);
  await worker.waitFor(/claimed task quick/);
  await worker.waitFor(/claimed task endless/);
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 0);
  const tasks = byName(await stack.waitForJob(project.id, job));
  assert.equal(tasks.quick?.state, 'success');
  const endless = await stack.readTask(tasks.endless!.id);
  assert.deepEqual([endless.task.state, endless.task.error], ['failure', 'worker shutdown']);
  assert.match(worker.output, /SIGTERM: no more claims/);
  assert.match(worker.output, /task endless \(\S+\) worker shutdown: exit_code=- /);
});

test('a second SIGTERM ends the running task tree at once and exits', async () => {
  const pidFile = join(stack.dir, 'impatient.pid');
  await runPipeline(`
image: localhost/conveyor-test:latest
tasks:
  endless:
    requires: [twice-test]
    script:
      - sleep 300 & echo $! > ${pidFile}
      - wait
`);
  const worker = await stack.startWorker('impatient', ['--features', 'twice-test', '--grace', '300']);
  await worker.waitFor(/claimed task endless/);
  let pid = 0;
  while (pid === 0) pid = Number(await readFile(pidFile, 'utf8').catch(() => '0')) || 0;
  worker.child.kill('SIGTERM');
  await worker.waitFor(/SIGTERM: no more claims/);
  const signalled = Date.now();
  worker.child.kill('SIGTERM');
  assert.equal(await worker.exited, 143);
  assert.ok(Date.now() - signalled < 3_000);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(isRunning(pid), false, 'the task process is gone');
});

/** Running, as opposed to gone or a zombie (which a container's init may never reap). */
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

test('a worker that cannot prepare a task directory reports the task failed instead of going silent', async () => {
  const worker = await stack.startWorker('no-room', ['--features', 'room-test']);
  // The work directory is replaced by a file: every task directory below it fails to be created.
  await rm(join(stack.dir, 'work-no-room'), { recursive: true, force: true });
  await writeFile(join(stack.dir, 'work-no-room'), 'not a directory\n');
  const job = await runPipeline(`
image: none
tasks:
  homeless:
    requires: [room-test]
    script:
      - echo never
`);
  const read = await stack.waitForJob(project.id, job, 30_000);
  const task = await stack.readTask(byName(read).homeless!.id);
  assert.equal(task.task.state, 'failure');
  assert.match(task.task.error ?? '', /^worker error: ENOTDIR/);
  await worker.waitFor(/task homeless \(\S+\) worker error: ENOTDIR/);
  assert.equal(worker.child.exitCode, null, 'the worker keeps running');
  await worker.stop();
});

test('a wrong token is reported once, with a hint, and the worker keeps trying without crashing', async () => {
  const tokenFile = join(stack.dir, 'wrong.token');
  await writeFile(tokenFile, 'cw_not-a-real-token\n');
  const child = spawn(process.execPath, [CONVEYOR_BIN, 'worker', '--url', stack.url, '--token-file', tokenFile, '--name', 'wrong', '--work-dir', join(stack.dir, 'work-wrong')], {
    env: { PATH: process.env.PATH },
  });
  const worker = new Proc(child);
  stack.workers.push(worker);
  await worker.waitFor(/claim failed \(check the worker token\): HTTP 401/);
  await new Promise((r) => setTimeout(r, 2_500));
  assert.equal(worker.output.match(/claim failed/g)?.length, 1, worker.output);
  assert.equal(child.exitCode, null);
  assert.ok(!worker.output.includes('not-a-real-token'));
  assert.equal(await worker.stop(), 0);
});

// Walks the parent chain from the script's shell up to pid 1, printing each process's environment.
const SNOOP_SCRIPT = `p=$PPID
while :; do
  echo "ancestor $p"
  tr '\\0' '\\n' < /proc/$p/environ
  [ "$p" -le 1 ] && break
  p=$(sed 's/.*) //' /proc/$p/stat | cut -d' ' -f2)
done
`;

test('a script reads no worker token from /proc/<pid>/environ of any ancestor, and needs no image on a shell worker', async () => {
  const { worker, token } = await stack.startWorkerWithTokenVariable('env-token', ['--features', 'environ-test']);
  const sha = await commitFiles(repo, { '.pipeline.yml': `
tasks:
  snoop:
    requires: [environ-test]
    script:
      - cat /proc/$PPID/environ
      - sh snoop.sh
`, 'snoop.sh': SNOOP_SCRIPT }, 'snoop');
  const job = await stack.createJob(project, sha);
  const read = await stack.waitForJob(project.id, job, 30_000);
  const snoop = byName(read).snoop!;
  const log = (await stack.readLog(project.id, job, snoop.id)).toString();
  assert.equal(snoop.state, 'success', log);
  const ancestors = [...log.matchAll(/^ancestor (\d+)$/gm)].map((match) => Number(match[1]));
  assert.ok(ancestors.length >= 2 && ancestors[ancestors.length - 1] === 1, log);
  assert.match(log, /PATH=/, 'the environments were readable, so the check means something');
  assert.ok(!log.includes(token), 'the token is in the log');
  assert.ok(!ancestors.includes(worker.child.pid!), `the worker is an ancestor of its script: ${ancestors.join(' ')}`);
  assert.ok(!worker.output.includes(token));
  await worker.stop();
});

const nobodyUid = (() => {
  try {
    return Number(readFileSync('/etc/passwd', 'utf8').match(/^nobody:[^:]*:(\d+):/m)?.[1] ?? NaN);
  } catch {
    return NaN;
  }
})();

test('--run-as runs shell scripts as that user, in a source tree it owns', { skip: (process.getuid?.() !== 0 || Number.isNaN(nobodyUid)) && 'needs root and a user named nobody' }, async () => {
  // Outside the stack's own 0700 directory, which the user could not enter.
  const workDir = await mkdtemp(join(tmpdir(), 'conveyor-run-as-'));
  try {
    const worker = await stack.startWorker('run-as', ['--features', 'run-as-test', '--run-as', 'nobody', '--work-dir', workDir]);
    assert.match(worker.output, /run-as=nobody/);
    const job = await runPipeline(`
tasks:
  confined:
    requires: [run-as-test]
    artifacts: [out/**]
    script:
      - id -u
      - echo "user=$USER"
      - touch README.md && stat -c %U README.md
      - mkdir -p out/deep && echo made > out/deep/by-script.txt
      - ls ${workDir} || echo "work dir not listable"
      - cat ../log || echo "log not readable"
`);
    const read = await stack.waitForJob(project.id, job, 30_000);
    const confined = byName(read).confined!;
    const log = (await stack.readLog(project.id, job, confined.id)).toString();
    assert.equal(confined.state, 'success', log);
    assert.match(log, new RegExp(`^\\$ id -u\n${nobodyUid}\n\\$ echo "user=\\$USER"\nuser=nobody\n`, 'm'));
    assert.match(log, /\$ touch README.md && stat -c %U README.md\nnobody\n/);
    assert.match(log, /Permission denied\nwork dir not listable\n/);
    assert.match(log, /Permission denied\nlog not readable\n$/);
    assert.deepEqual((await stack.readTask(confined.id)).artifacts.map((artifact) => artifact.path), ['out/deep/by-script.txt']);
    await worker.stop();
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
});
