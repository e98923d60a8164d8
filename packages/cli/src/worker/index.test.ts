import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../main.js';
import type { CommandIO } from '../usage.js';
import { parseWorkerArgs } from './index.js';

const BIN = resolve(fileURLToPath(import.meta.url), '../../../bin/conveyor.js');

/**
 * Whether a user who is neither owner nor group (nobody) can reach the checkout: every directory above
 * it searchable by others. A clone under `mktemp -d` (mode 0700) is not, and nobody cannot even start
 * the CLI there.
 */
function othersCanReach(path: string): boolean {
  for (let directory = dirname(path); ; directory = dirname(directory)) {
    if ((statSync(directory).mode & 0o001) === 0) return false;
    if (dirname(directory) === directory) return true;
  }
}
const TOKEN = 'cw_secret-token-value-1234';

function captureIO(env: NodeJS.ProcessEnv = {}): CommandIO & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { stdout: (t) => void (out += t), stderr: (t) => void (err += t), stdin: process.stdin, env, out: () => out, err: () => err };
}

test('parses every option and refuses unknown ones', () => {
  const flags = parseWorkerArgs(['--url', 'http://h:1', '--token-file', '/t', '--concurrency', '4', '--executor', 'podman', '--keep-work', '--container-run-args=--ulimit nofile=1024:1024']);
  assert.equal(flags.url, 'http://h:1');
  assert.equal(flags.concurrency, '4');
  assert.equal(flags.keepWork, true);
  assert.equal(flags.containerRunArgs, '--ulimit nofile=1024:1024');
  assert.throws(() => parseWorkerArgs(['--token', 'x']), /Unknown option '--token'/);
});

test('bad settings exit 2 with a message naming the option and its variable', async () => {
  const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
    [[], {}, /--url \(CONVEYOR_WORKER_URL\) is required/],
    [['--url', 'ftp://x'], {}, /must be an http or https URL/],
    [['--url', 'http://x'], {}, /a worker token is required/],
    [['--url', 'http://x', '--token-file', '/nonexistent/token'], {}, /--token-file \(CONVEYOR_WORKER_TOKEN_FILE\) cannot be read: ENOENT/],
    [['--url', 'http://x'], { CONVEYOR_WORKER_TOKEN: 't', CONVEYOR_WORKER_EXECUTOR: 'lxc' }, /--executor \(CONVEYOR_WORKER_EXECUTOR\) must be one of shell, podman, docker/],
    [['--url', 'http://x', '--concurrency', '0'], { CONVEYOR_WORKER_TOKEN: 't' }, /--concurrency \(CONVEYOR_WORKER_CONCURRENCY\) must be an integer from 1/],
    [['--bogus'], {}, /Unknown option '--bogus'/],
    [['--url', 'http://x', '--run-as', 'no-such-user-here'], { CONVEYOR_WORKER_TOKEN: 't' }, /--run-as \(CONVEYOR_WORKER_RUN_AS\): no user "no-such-user-here"/],
    [['--url', 'http://x', '--run-as', 'nobody', '--executor', 'podman'], { CONVEYOR_WORKER_TOKEN: 't' }, /--run-as \(CONVEYOR_WORKER_RUN_AS\) applies to the shell executor only/],
  ];
  for (const [argv, env, message] of cases) {
    const io = captureIO(env);
    assert.equal(await main(['worker', ...argv], io), 2, argv.join(' '));
    assert.match(io.err(), message);
    assert.equal(io.out(), '');
  }
  const help = captureIO();
  assert.equal(await main(['worker', '--help'], help), 0);
  assert.match(help.out(), /--container-run-args/);
});

test('the worker process starts, claims with its token, never prints it, and stops on SIGTERM', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-cli-worker-'));
  const claims: { auth: string | undefined; body: unknown; url: string | undefined }[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    claims.push({ auth: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString()), url: req.url });
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await writeFile(join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    const port = (server.address() as AddressInfo).port;
    const child = spawn(process.execPath, [BIN, 'worker', '--token-file', join(dir, 'token'), '--verbose', '--features', 'docker,gpu', '--poll-wait', '1'], {
      env: { PATH: process.env.PATH, CONVEYOR_WORKER_URL: `http://127.0.0.1:${port}`, CONVEYOR_WORKER_NAME: 'cli-test', CONVEYOR_WORKER_ARCH: 'amd64,arm64', CONVEYOR_WORKER_WORK_DIR: join(dir, 'work') },
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    while (claims.length < 2) await new Promise((r) => setTimeout(r, 50));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.equal(claims[0]!.auth, `Bearer ${TOKEN}`);
    assert.equal(claims[0]!.url, '/api/v1/tasks/claim?wait=1');
    assert.deepEqual(claims[0]!.body, { arches: ['amd64', 'arm64'], features: ['gpu'], name: 'cli-test' });
    assert.match(output, /warning: feature 'docker' dropped/);
    assert.match(output, /conveyor worker cli-test started: url=http:\/\/127\.0\.0\.1:\d+\/ executor=shell concurrency=1/);
    assert.match(output, /debug: POST http:\/\/127\.0\.0\.1:\d+\/api\/v1\/tasks\/claim\?wait=1 -> 204/);
    assert.match(output, /SIGTERM: no more claims/);
    assert.ok(!output.includes(TOKEN) && !output.includes('secret-token'), 'the token never appears in the output');
  } finally {
    server.closeAllConnections();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a work directory others can write, or --run-as without root, exits 2 before anything runs', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-cli-workdir-'));
  try {
    const open = join(dir, 'open');
    await mkdir(open, { mode: 0o700 });
    await chmod(open, 0o777);
    const io = captureIO({ CONVEYOR_WORKER_TOKEN: TOKEN });
    assert.equal(await main(['worker', '--url', 'http://127.0.0.1:1', '--work-dir', open], io), 2);
    assert.match(io.err(), /--work-dir \(CONVEYOR_WORKER_WORK_DIR\) \S+open can be written by other users \(mode 777\); run chmod go-w/);
    assert.equal(io.out(), '');
    if (process.getuid?.() === 0 && !othersCanReach(BIN)) {
      t.diagnostic(`--run-as as an unprivileged user is not checked: nobody cannot reach ${BIN} (a directory above it is closed to others)`);
    } else if (process.getuid?.() === 0) {
      // A real unprivileged process: the check is the worker's own uid, nothing to stand in for.
      await chmod(dir, 0o755);
      const child = spawn(process.execPath, [BIN, 'worker', '--url', 'http://127.0.0.1:1', '--run-as', 'nobody', '--work-dir', join(dir, 'w')], {
        uid: 65534, gid: 65534, env: { PATH: process.env.PATH, CONVEYOR_WORKER_TOKEN: TOKEN },
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
      assert.equal(code, 2, err);
      assert.match(err, /--run-as \(CONVEYOR_WORKER_RUN_AS\) needs the worker to run as root/);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
