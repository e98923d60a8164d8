import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ContainerExecutor } from './container.js';
import { prepareRun } from './testing-spec.js';
import { containerTestsRunnable, ensureTestImage, PODMAN_GLOBAL_ARGS, PODMAN_RUN_ARGS } from '../testing/image.js';

// Real podman. Without it these tests are skipped with the reason and the install line; in CI
// (CONVEYOR_REQUIRE_CONTAINERS=1) a missing podman fails the file instead.
const { skip } = containerTestsRunnable();
const image = skip === false ? ensureTestImage() : 'unused';
const label = `conveyor.worker=executor-test-${process.pid}`;
const executor = new ContainerExecutor({
  cli: 'podman',
  globalArgs: PODMAN_GLOBAL_ARGS,
  runArgs: PODMAN_RUN_ARGS,
  network: 'none',
  label,
  killGraceMs: 2000,
  cliEnv: process.env,
});

function containersLeft(): string {
  return execFileSync('podman', [...PODMAN_GLOBAL_ARGS, 'ps', '-aq', '--filter', `label=${label}`], { encoding: 'utf8' }).trim();
}

test('runs the script in the image with the task directory mounted at workdir', { skip }, async () => {
  const run = await prepareRun(['echo "in $(pwd) as $GREETING"', 'cat input.txt', 'echo made > output.txt', 'echo oops >&2', 'exit 3'], { GREETING: 'a container' }, [], image);
  try {
    const result = await executor.run(run.spec, new AbortController().signal);
    assert.equal(result.exitCode, 3, run.output());
    assert.match(run.output(), /^\$ echo "in \$\(pwd\) as \$GREETING"\nin \/builds\/project as a container\n\$ cat input.txt\nfrom the source tree\n/);
    assert.match(run.output(), /\$ echo oops >&2\noops\n\$ exit 3\n$/);
    assert.equal(await readFile(join(run.spec.hostDir, 'output.txt'), 'utf8'), 'made\n');
    assert.equal(containersLeft(), '');
  } finally {
    await run.dispose();
  }
});

test('starts services first in a shared network namespace and removes them afterwards', { skip }, async () => {
  const run = await prepareRun(
    ['for i in 1 2 3 4 5 6 7 8 9 10; do wget -qO- http://localhost:8080/hello.txt && break; sleep 0.3; done', 'wget -qO- http://web:8080/hello.txt'],
    {},
    [{ name: 'web', image, env: { GREETING: 'hello from the service' }, command: ['/bin/sh', '-c', 'mkdir -p /www && echo "$GREETING" > /www/hello.txt && exec httpd -f -p 8080 -h /www'] }],
    image,
  );
  try {
    const result = await executor.run(run.spec, new AbortController().signal);
    assert.equal(result.exitCode, 0, run.output());
    assert.match(run.output(), /service web started/);
    assert.match(run.output(), /\nhello from the service\n\$ wget -qO- http:\/\/web:8080\/hello.txt\nhello from the service\n$/);
    assert.equal(containersLeft(), '');
  } finally {
    await run.dispose();
  }
});

test('abort ends the container and its services promptly', { skip }, async () => {
  const run = await prepareRun(['echo started', 'sleep 300'], {}, [{ name: 'idle', image, env: {}, command: ['sleep', '300'] }], image);
  try {
    const controller = new AbortController();
    const finished = executor.run(run.spec, controller.signal);
    while (!run.output().includes('started\n')) await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    controller.abort();
    assert.equal((await finished).exitCode, null);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    assert.equal(containersLeft(), '');
  } finally {
    await run.dispose();
  }
});

test('a service that cannot start fails the task with the runtime message', { skip }, async () => {
  const run = await prepareRun(['echo never'], {}, [{ name: 'ghost', image: 'localhost/no-such-image:1', env: {}, command: [] }], image);
  try {
    const result = await executor.run(run.spec, new AbortController().signal);
    assert.equal(result.exitCode, 125);
    assert.match(run.output(), /service ghost \(localhost\/no-such-image:1\) did not start/);
    assert.doesNotMatch(run.output(), /never/);
    assert.equal(containersLeft(), '');
  } finally {
    await run.dispose();
  }
});

test('refuses payload values that would become runtime flags or mount options', { skip }, async () => {
  const cases: [string, string, { name: string; image: string }[]][] = [
    ['--privileged', '/builds/project', []],
    ['', '/builds/project', []],
    [image, '/builds/project:rw', []],
    [image, 'relative', []],
    [image, '/builds/project', [{ name: 'evil', image: '-v=/:/host' }]],
    [image, '/builds/project', [{ name: 'Bad\nname', image }]],
  ];
  for (const [taskImage, workdir, services] of cases) {
    const run = await prepareRun(['echo never'], {}, services.map((s) => ({ ...s, env: {}, command: [] })), taskImage);
    try {
      run.spec.workdir = workdir;
      const result = await executor.run(run.spec, new AbortController().signal);
      assert.equal(result.exitCode, 125, `${taskImage} ${workdir}`);
      assert.match(run.output(), /^conveyor: refused /);
      assert.equal(containersLeft(), '');
    } finally {
      await run.dispose();
    }
  }
});
