import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, copyFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEST_IMAGE = 'localhost/conveyor-test:latest';
/**
 * What podman needs on hosts whose kernel refuses crun's cgroup handling and raising rlimits (the
 * project's CI machines among them; docs/worker.md, "Hosts that need extra flags"); harmless elsewhere.
 */
export const PODMAN_GLOBAL_ARGS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];
export const PODMAN_RUN_ARGS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096', '--pull', 'never'];

/** The one line that makes the container tests runnable on a Debian or Ubuntu machine. */
export const INSTALL_LINE = 'apt-get update && apt-get install -y podman runc busybox-static';
/** Set by CI (.ci/run): there a missing container runtime fails the tests instead of skipping them. */
export const REQUIRE_VARIABLE = 'CONVEYOR_REQUIRE_CONTAINERS';

/**
 * Whether the container tests can run here: `{ skip: false }` when podman and busybox are present,
 * else `{ skip: reason }`, the reason naming what is missing and the install line, for node:test's
 * report. Where CONVEYOR_REQUIRE_CONTAINERS=1 (CI) a missing runtime throws instead, so the file fails.
 */
export function containerTestsRunnable(env: NodeJS.ProcessEnv = process.env): { skip: false } | { skip: string } {
  const missing = ['podman', 'busybox'].filter((tool) => {
    try {
      execFileSync('/bin/sh', ['-c', `command -v ${tool}`], { env: { PATH: env.PATH ?? '' }, stdio: 'ignore' });
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return { skip: false };
  const reason = `${missing.join(' and ')} not found; install with: ${INSTALL_LINE}`;
  if (env[REQUIRE_VARIABLE] === '1') throw new Error(`${REQUIRE_VARIABLE}=1 but ${reason}`);
  return { skip: `${reason} (set ${REQUIRE_VARIABLE}=1 to make this a failure)` };
}

/**
 * Builds a small image from the host's static busybox and imports it (never pulled from a registry).
 * Call it only when containerTestsRunnable() said so.
 */
export function ensureTestImage(): string {
  const podman = ['podman', ...PODMAN_GLOBAL_ARGS];
  try {
    execFileSync(podman[0]!, [...podman.slice(1), 'image', 'exists', TEST_IMAGE]);
    return TEST_IMAGE;
  } catch {
    // not there yet: build it below
  }
  const busybox = execFileSync('sh', ['-c', 'command -v busybox'], { encoding: 'utf8' }).trim();
  const root = mkdtempSync(join(tmpdir(), 'conveyor-image-'));
  try {
    mkdirSync(join(root, 'bin'));
    mkdirSync(join(root, 'tmp'));
    chmodSync(join(root, 'tmp'), 0o1777);
    copyFileSync(busybox, join(root, 'bin/busybox'));
    chmodSync(join(root, 'bin/busybox'), 0o755);
    const applets = execFileSync(join(root, 'bin/busybox'), ['--list'], { encoding: 'utf8' }).split('\n').filter((a) => a !== '' && a !== 'busybox');
    for (const applet of applets) symlinkSync('busybox', join(root, 'bin', applet));
    execFileSync('tar', ['-C', root, '-cf', join(root, '..', `${root.split('/').pop()}.tar`), '.']);
    execFileSync(podman[0]!, [...podman.slice(1), 'import', '--change', 'ENV PATH=/bin', join(root, '..', `${root.split('/').pop()}.tar`), TEST_IMAGE], { stdio: 'ignore' });
    return TEST_IMAGE;
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(`${root}.tar`, { force: true });
  }
}
