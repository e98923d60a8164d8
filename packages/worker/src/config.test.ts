import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, resolveConfig } from './config.js';

test('every setting falls back to its CONVEYOR_WORKER_* variable; an option wins over it', async () => {
  const { config, warnings } = await resolveConfig(
    { url: 'http://flag:1', concurrency: '3' },
    {
      CONVEYOR_WORKER_URL: 'http://env:2',
      CONVEYOR_WORKER_TOKEN: ' tok-from-env\n',
      CONVEYOR_WORKER_CONCURRENCY: '9',
      CONVEYOR_WORKER_EXECUTOR: 'podman',
      CONVEYOR_WORKER_FEATURES: 'gpu, docker ,gpu',
      CONVEYOR_WORKER_ARCH: 'arm64',
      CONVEYOR_WORKER_KEEP_WORK: 'true',
      CONVEYOR_WORKER_CONTAINER_GLOBAL_ARGS: '--runtime runc  --cgroup-manager cgroupfs',
      CONVEYOR_WORKER_CONTAINER_NETWORK: 'none',
    },
  );
  assert.deepEqual(warnings, []);
  assert.equal(config.url, 'http://flag:1/');
  assert.equal(config.token, 'tok-from-env');
  assert.equal(config.concurrency, 3);
  assert.equal(config.executor, 'podman');
  assert.deepEqual(config.features, ['gpu', 'docker']);
  assert.deepEqual(config.arches, ['arm64']);
  assert.equal(config.keepWork, true);
  assert.deepEqual(config.container, { cli: 'podman', globalArgs: ['--runtime', 'runc', '--cgroup-manager', 'cgroupfs'], runArgs: [], network: 'none' });
});

test('the shell executor never offers docker, and a token file wins over the variable', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-config-'));
  try {
    await writeFile(join(dir, 'token'), 'from-file\n');
    const { config, warnings } = await resolveConfig({ url: 'https://ci.example', tokenFile: join(dir, 'token'), features: 'docker,big' }, { CONVEYOR_WORKER_TOKEN: 'from-env' });
    assert.equal(config.token, 'from-file');
    assert.deepEqual(config.features, ['big']);
    assert.match(warnings[0] ?? '', /feature 'docker' dropped/);
    assert.equal(config.executor, 'shell');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('wrong values are refused with the option and variable named', async () => {
  const env = { CONVEYOR_WORKER_TOKEN: 't' };
  await assert.rejects(resolveConfig({ url: 'http://x', grace: '-1' }, env), (e: Error) => e instanceof ConfigError && /--grace \(CONVEYOR_WORKER_GRACE\)/.test(e.message));
  await assert.rejects(resolveConfig({ url: 'http://x', pollWait: '61' }, env), /--poll-wait \(CONVEYOR_WORKER_POLL_WAIT\) must be an integer from 0 to 60/);
  await assert.rejects(resolveConfig({ url: 'http://x', arch: ' , ' }, env), /names no architecture/);
  await assert.rejects(resolveConfig({ url: 'http://x' }, { CONVEYOR_WORKER_TOKEN: 'two words' }), /one line without spaces/);
});
