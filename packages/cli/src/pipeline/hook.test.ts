import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { CommandIO } from '../usage.js';
import { runHookCommand } from './hook.js';
import { CONVEYOR_BIN } from '../testing/run-cli.js';
import { TEST_GIT_ENV } from '@conveyor/kit/testing';

interface Recorded {
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const SECRET = 's3cret with spaces';
const ZERO = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

const GIT_ENV: NodeJS.ProcessEnv = { ...TEST_GIT_ENV, CONVEYOR_ACTOR: 'alice' };

function git(cwd: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, env: GIT_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ stdout: stdout.trim(), stderr }) : reject(new Error(`git ${args.join(' ')}: ${stderr}`))));
  });
}

async function commit(repo: string, file: string, content: string): Promise<string> {
  await writeFile(join(repo, file), content);
  await git(repo, ['add', '--all']);
  await git(repo, ['commit', '--quiet', '-m', `write ${file}`]);
  return (await git(repo, ['rev-parse', 'HEAD'])).stdout;
}

/** Answers like the pipeline service: created, or 409 for the project named "disabled". */
function startServer(requests: Recorded[]): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) });
      const disabled = (request.url ?? '').includes('/disabled/');
      response.writeHead(disabled ? 409 : 200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(disabled ? { error: 'the project is disabled' } : { status: 'created', job_id: 'x', tasks: 1 }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      assert.ok(address !== null && typeof address === 'object');
      resolve({ server, url: `http://127.0.0.1:${address.port}` });
    }),
  );
}

function assertSigned(request: Recorded): Record<string, unknown> {
  const expected = `sha256=${createHmac('sha256', SECRET).update(request.body).digest('hex')}`;
  assert.equal(request.headers['x-hub-signature-256'], expected);
  assert.equal(request.headers['content-type'], 'application/json');
  return JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
}

function captureIO(lines: string[], env: NodeJS.ProcessEnv = {}): CommandIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => out.push(text), stderr: (text) => err.push(text), stdin: Readable.from(lines.map((line) => `${line}\n`)), env };
}

describe('conveyor pipeline hook post-receive', () => {
  const requests: Recorded[] = [];
  let server: Server;
  let baseUrl: string;
  let temp: string;
  let secretFile: string;

  before(async () => {
    ({ server, url: baseUrl } = await startServer(requests));
    temp = await mkdtemp(join(tmpdir(), 'conveyor-hook-'));
    secretFile = join(temp, 'secret');
    await writeFile(secretFile, `${SECRET}\n`, { mode: 0o600 });
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(temp, { recursive: true, force: true });
  });
  beforeEach(() => {
    requests.length = 0;
  });

  it('runs as a real post-receive hook: one signed trigger per pushed ref, deletions skipped', async () => {
    const bare = join(temp, 'server.git');
    await git(temp, ['init', '--quiet', '--bare', bare]);
    const hook = join(bare, 'hooks', 'post-receive');
    await writeFile(
      hook,
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CONVEYOR_BIN)} pipeline hook post-receive --url ${JSON.stringify(baseUrl)} --project demo --secret-file ${JSON.stringify(secretFile)}\n`,
    );
    await chmod(hook, 0o755);

    const work = join(temp, 'work');
    await mkdir(work);
    await git(work, ['init', '--quiet', '--initial-branch=main']);
    const first = await commit(work, 'a.txt', '1\n');
    await git(work, ['checkout', '--quiet', '-b', 'feature']);
    const featured = await commit(work, 'b.txt', '2\n');
    await git(work, ['checkout', '--quiet', 'main']);

    const pushed = await git(work, ['push', bare, 'main', 'feature']);
    assert.match(pushed.stderr, /remote: triggered refs\/heads\/main [0-9a-f]{7}: job x/);
    assert.match(pushed.stderr, /remote: triggered refs\/heads\/feature [0-9a-f]{7}: job x/);
    assert.equal(requests.length, 2);
    const bodies = requests.map((request) => {
      assert.equal(request.url, '/api/v1/projects/demo/trigger');
      return assertSigned(request);
    });
    bodies.sort((x, y) => String(x.ref).localeCompare(String(y.ref)));
    assert.deepEqual(bodies, [
      { sha: featured, base: '', ref: 'refs/heads/feature', actor: 'alice' },
      { sha: first, base: '', ref: 'refs/heads/main', actor: 'alice' },
    ]);

    requests.length = 0;
    const second = await commit(work, 'a.txt', '3\n');
    const again = await git(work, ['push', bare, 'main', ':feature']);
    assert.match(again.stderr, /remote: skipped refs\/heads\/feature: deleted/);
    assert.equal(requests.length, 1);
    assert.deepEqual(assertSigned(requests[0] as Recorded), { sha: second, base: first, ref: 'refs/heads/main', actor: 'alice' });
  });

  it('reads lines from stdin when called directly', async () => {
    const io = captureIO([`${ZERO} ${A} refs/heads/main`, '', `${A} ${B} refs/tags/v1`, `${B} ${ZERO} refs/heads/old`], { CONVEYOR_ACTOR: 'bob', GL_USERNAME: 'ignored' });
    const status = await runHookCommand(['post-receive', '--url', `${baseUrl}/`, '--project', 'demo', '--secret-file', secretFile], io);
    assert.equal(status, 0, io.err.join(''));
    assert.deepEqual(requests.map(assertSigned), [
      { sha: A, base: '', ref: 'refs/heads/main', actor: 'bob' },
      { sha: B, base: A, ref: 'refs/tags/v1', actor: 'bob' },
    ]);
    assert.deepEqual(io.out, ['triggered refs/heads/main aaaaaaa: job x\n', 'triggered refs/tags/v1 bbbbbbb: job x\n', 'skipped refs/heads/old: deleted, nothing to build\n']);
  });

  it('chooses the actor from the git server variables, then the user name', async () => {
    const cases: Array<[NodeJS.ProcessEnv, string]> = [
      [{ GL_USERNAME: 'gl-user', GITEA_PUSHER_NAME: 'gitea-user' }, 'gl-user'],
      [{ CONVEYOR_ACTOR: '', GITEA_PUSHER_NAME: 'gitea-user' }, 'gitea-user'],
      [{}, userInfo().username],
    ];
    for (const [env] of cases) {
      const io = captureIO([`${ZERO} ${A} refs/heads/main`], env);
      assert.equal(await runHookCommand(['post-receive', '--url', baseUrl, '--project', 'demo', '--secret-file', secretFile], io), 0);
    }
    assert.deepEqual(
      requests.map((request) => assertSigned(request).actor),
      cases.map(([, actor]) => actor),
    );
  });

  it('keeps a path prefix and encodes the project name', async () => {
    const io = captureIO([`${ZERO} ${A} refs/heads/main`]);
    await runHookCommand(['post-receive', '--url', `${baseUrl}/ci/`, '--project', 'team/app one', '--secret-file', secretFile], io);
    assert.equal(requests[0]?.url, '/ci/api/v1/projects/team%2Fapp%20one/trigger');
  });

  it('exits 1 and prints the status and the server error when a trigger fails', async () => {
    const io = captureIO([`${ZERO} ${A} refs/heads/main`, `${ZERO} ${B} refs/heads/other`]);
    const status = await runHookCommand(['post-receive', '--url', baseUrl, '--project', 'disabled', '--secret-file', secretFile], io);
    assert.equal(status, 1);
    assert.equal(requests.length, 2, 'a failure does not stop the other refs');
    assert.match(io.err.join(''), /failed refs\/heads\/main aaaaaaa: HTTP 409: the project is disabled/);
  });

  it('exits 1 when the service cannot be reached', async () => {
    const closed = await startServer([]);
    await new Promise((resolve) => closed.server.close(resolve));
    const io = captureIO([`${ZERO} ${A} refs/heads/main`]);
    assert.equal(await runHookCommand(['post-receive', '--url', closed.url, '--project', 'demo', '--secret-file', secretFile], io), 1);
    assert.match(io.err.join(''), /failed refs\/heads\/main aaaaaaa: fetch failed/);
  });

  it('exits 2 on bad usage, sending nothing', async () => {
    const good = ['--url', baseUrl, '--project', 'demo', '--secret-file', secretFile];
    const cases: Array<[string[], RegExp]> = [
      [[], /post-receive/],
      [['pre-receive', ...good], /post-receive/],
      [['post-receive', 'extra', ...good], /post-receive/],
      [['post-receive', '--project', 'demo', '--secret-file', secretFile], /--url is required/],
      [['post-receive', '--url', baseUrl, '--secret-file', secretFile], /--project is required/],
      [['post-receive', '--url', baseUrl, '--project', 'demo'], /--secret-file is required/],
      [['post-receive', ...good, '--nope'], /nope/],
      [['post-receive', '--url', 'ftp://example.test', '--project', 'demo', '--secret-file', secretFile], /http/],
      [['post-receive', '--url', 'not a url', '--project', 'demo', '--secret-file', secretFile], /not a URL/],
      [['post-receive', '--url', baseUrl, '--project', 'demo', '--secret-file', join(temp, 'absent')], /cannot read the secret file/],
    ];
    for (const [argv, message] of cases) {
      const io = captureIO([`${ZERO} ${A} refs/heads/main`]);
      assert.equal(await runHookCommand(argv, io), 2, argv.join(' '));
      assert.match(io.err.join(''), message, argv.join(' '));
    }
    assert.equal(requests.length, 0);
  });

  it('prints its usage with --help', async () => {
    const io = captureIO([]);
    assert.equal(await runHookCommand(['--help'], io), 0);
    assert.match(io.out.join(''), /Usage: conveyor pipeline hook post-receive/);
    for (const command of ['install', 'print']) {
      const shown = captureIO([]);
      assert.equal(await runHookCommand([command, '--help'], shown), 0, command);
      assert.match(shown.out.join(''), /conveyor pipeline hook install --repo REPO/, command);
    }
  });
});
