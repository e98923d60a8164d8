import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The container tests on a machine without podman: run for real with a PATH where neither podman nor
// busybox can be found.
const CONTAINER_TESTS = fileURLToPath(new URL('../executors/container.test.js', import.meta.url));

function runWithoutPodman(extra: NodeJS.ProcessEnv): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, ['--test', CONTAINER_TESTS], { env: { PATH: '/nonexistent', ...extra }, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

test('without podman the container tests are reported as skipped, with the reason and the install line', () => {
  const { status, output } = runWithoutPodman({});
  assert.equal(status, 0, output);
  assert.match(output, /# SKIP podman and busybox not found; install with: apt-get update && apt-get install -y podman runc busybox-static \(set CONVEYOR_REQUIRE_CONTAINERS=1 to make this a failure\)/);
  assert.match(output, /# skipped 5/);
  assert.match(output, /# pass 0/);
});

test('with CONVEYOR_REQUIRE_CONTAINERS=1 a missing podman is a failure, never a skip', () => {
  const { status, output } = runWithoutPodman({ CONVEYOR_REQUIRE_CONTAINERS: '1' });
  assert.notEqual(status, 0, output);
  assert.match(output, /CONVEYOR_REQUIRE_CONTAINERS=1 but podman and busybox not found; install with: apt-get update/);
  assert.doesNotMatch(output, /# skipped [1-9]/);
});
