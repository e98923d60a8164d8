import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, copyFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TEST_IMAGE = 'localhost/conveyor-test:latest';
/** What this machine's podman needs (see ../shared/CONTAINERS.md); harmless elsewhere. */
export const PODMAN_GLOBAL_ARGS = ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'];
export const PODMAN_RUN_ARGS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=4096:4096', '--pull', 'never'];

/**
 * Builds a small image from the host's static busybox and imports it (never pulled from a registry).
 * Fails loudly when podman or busybox is missing: the container tests must not be skipped silently.
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
