import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { commitFiles, makeRepo } from '../testing/git.js';
import { containerTestsRunnable, ensureTestImage, PODMAN_GLOBAL_ARGS, PODMAN_RUN_ARGS } from '../testing/image.js';
import { byName, Stack, type Proc } from './stack.js';

// The same end-to-end run through the podman executor: an image built here from busybox (never
// pulled), a service reached on localhost and by name. Skipped with the reason and the install line
// where podman is missing, except in CI (CONVEYOR_REQUIRE_CONTAINERS=1), where that is a failure.
const { skip } = containerTestsRunnable();
const image = skip === false ? ensureTestImage() : 'unused';
const WORKER = 'podman-e2e';
let stack: Stack;
let worker: Proc;
let repo: string;
let project: { id: string; trigger_secret: string };
const SECRET = 'pd-secret-0a1b2c3d4e5f';

before(async () => {
  if (skip !== false) return;
  stack = await Stack.start({ heartbeatInterval: 1 });
  repo = join(stack.dir, 'repo');
  await makeRepo(repo, { 'README.md': 'from the repository\n' });
  project = await stack.createProject('e2e-podman', repo);
  await stack.setSecret(project.id, 'SECRET_TOKEN', SECRET);
  worker = await stack.startWorker(WORKER, [
    '--executor', 'podman', '--concurrency', '3', '--container-network', 'none',
    `--container-global-args=${PODMAN_GLOBAL_ARGS.join(' ')}`, `--container-run-args=${PODMAN_RUN_ARGS.join(' ')}`,
  ]);
});

after(async () => {
  if (skip !== false) return;
  await stack.stop();
});

function containersLeft(): string {
  return execFileSync('podman', [...PODMAN_GLOBAL_ARGS, 'ps', '-aq', '--filter', `label=conveyor.worker=${WORKER}`], { encoding: 'utf8' }).trim();
}

async function runPipeline(yaml: string): Promise<string> {
  return stack.createJob(project, await commitFiles(repo, { '.pipeline.yml': yaml }, 'pipeline'));
}

test('a pipeline runs in containers: matrix and needs, a service on localhost, artifacts, retries, masking', { skip }, async () => {
  const job = await runPipeline(`
image: ${image}
tasks:
  build:
    matrix:
      variant: [a, b]
    requires: [docker]
    script:
      - mkdir -p out && echo "built $variant in $(pwd) from $(cat README.md)" > out/$variant.txt
    artifacts: ["out/*.txt"]
  check:
    needs: [build]
    services:
      - name: web
        image: ${image}
        env:
          GREETING: hello from the service
        command: ["/bin/sh", "-c", 'mkdir -p /www && echo "$GREETING" > /www/index.html && exec httpd -f -p 8080 -h /www']
    script:
      - for i in 1 2 3 4 5 6 7 8 9 10; do wget -qO- http://localhost:8080/ && break; sleep 0.3; done
      - wget -qO- http://web:8080/
      - echo "secret $SECRET_TOKEN"
  flaky:
    retries: 1
    script:
      - exit 5
  optional:
    allow_failure: true
    script:
      - exit 6
  slow:
    timeout: 2
    script:
      - sleep 300
  after-flaky:
    needs: [flaky]
    script:
      - echo never
`);
  const read = await stack.waitForJob(project.id, job, 90_000);
  const tasks = byName(read);
  assert.equal(tasks['build:variant=a']?.state, 'success', worker.output);
  assert.equal(tasks['build:variant=b']?.state, 'success');
  assert.equal(tasks.check?.state, 'success');
  assert.deepEqual([tasks.flaky?.state, tasks.flaky?.exit_code, tasks.flaky?.attempt], ['failure', 5, 2]);
  assert.equal(tasks['after-flaky']?.state, 'skipped');
  assert.deepEqual([tasks.optional?.state, tasks.optional?.exit_code], ['failure', 6]);
  const slow = await stack.readTask(tasks.slow!.id);
  assert.deepEqual([slow.task.state, slow.task.error], ['failure', 'timeout']);
  assert.equal(read.job.state, 'failure');
  for (const variant of ['a', 'b']) {
    const { artifacts } = await stack.readTask(tasks[`build:variant=${variant}`]!.id);
    assert.equal(artifacts.length, 1);
    const bytes = await stack.download(artifacts[0]!.url);
    assert.equal(bytes.toString(), `built ${variant} in /workspace from from the repository\n`);
    assert.equal(createHash('sha256').update(bytes).digest('hex'), artifacts[0]!.sha256);
  }
  const log = (await stack.readLog(project.id, job, tasks.check!.id)).toString();
  assert.match(log, /service web started/);
  assert.match(log, /\nhello from the service\n\$ wget -qO- http:\/\/web:8080\/\nhello from the service\n\$ echo "secret \$SECRET_TOKEN"\nsecret \*\*\*\n$/);
  assert.ok(!log.includes(SECRET));
  assert.equal(containersLeft(), '');
});

test('cancelling a containerised task removes its container and services', { skip }, async () => {
  const job = await runPipeline(`
image: ${image}
tasks:
  long:
    services:
      - name: idle
        image: ${image}
        command: ["sleep", "300"]
    script:
      - echo ready
      - sleep 300
`);
  const long = byName(await stack.readJob(project.id, job)).long!;
  await stack.waitForTask(long.id, (read) => read.task.log_size > 0 && read.task.state === 'running');
  assert.notEqual(containersLeft(), '');
  await stack.cancelJob(project, job);
  const read = await stack.waitForJob(project.id, job, 30_000);
  assert.equal(byName(read).long?.state, 'canceled');
  await worker.waitFor(/task long \(\S+\) canceled/);
  assert.equal(containersLeft(), '');
});

test('a worker killed with SIGKILL leaves its container; the next worker of that name removes it at start', { skip }, async () => {
  await runPipeline(`
image: ${image}
tasks:
  orphaned:
    requires: [podman-kill]
    script:
      - sleep 300
`);
  const label = 'conveyor.worker=phoenix';
  const left = (): string => execFileSync('podman', [...PODMAN_GLOBAL_ARGS, 'ps', '-aq', '--filter', `label=${label}`], { encoding: 'utf8' }).trim();
  const args = ['--executor', 'podman', '--features', 'podman-kill', '--container-network', 'none', `--container-global-args=${PODMAN_GLOBAL_ARGS.join(' ')}`, `--container-run-args=${PODMAN_RUN_ARGS.join(' ')}`];
  const first = await stack.startWorker('phoenix', args);
  await first.waitFor(/claimed task orphaned/);
  while (left() === '') await new Promise((r) => setTimeout(r, 100));
  first.child.kill('SIGKILL');
  await first.exited;
  await new Promise((r) => setTimeout(r, 500));
  assert.notEqual(left(), '', 'the container outlived its worker');
  const second = await stack.startWorker('phoenix', args, stack.url, join(stack.dir, 'phoenix.token'));
  const deadline = Date.now() + 20_000;
  while (left() !== '' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  assert.equal(left(), '');
  await second.stop();
});
