// The sh post-receive hook against a real pipeline service: real bare repositories, pushes with the git
// CLI, the jobs read back from the service's store.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { admin, buildApp, openPipeline, readPipelineConfig, type PipelineDeps, type Project } from '@conveyor/pipeline';
import type { CommandIO } from '../usage.js';
import { runHookCommand } from './hook.js';
import { TEST_GIT_ENV } from '@conveyor/kit/testing';

const SECRET_PATTERN = /^[A-Za-z0-9_-]{20,}$/;
const PIPELINE = 'tasks:\n  build:\n    image: alpine\n    script: [make]\n';



function run(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? TEST_GIT_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: stdout.trim(), stderr }));
    // A command that never reads its input (git push) may be gone before the end is written.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

async function git(cwd: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  const result = await run('git', args, { cwd, env });
  if (result.code !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result;
}

async function commit(repo: string, file: string, content: string): Promise<string> {
  await writeFile(join(repo, file), content);
  await git(repo, ['add', '--all']);
  await git(repo, ['commit', '--quiet', '-m', `write ${file}`]);
  return (await git(repo, ['rev-parse', 'HEAD'])).stdout;
}

function io(): CommandIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, stdout: (text) => out.push(text), stderr: (text) => err.push(text), stdin: Readable.from([]), env: process.env };
}

/**
 * Wrappers for the tools the hook runs, first on PATH, that log their command lines before running the real
 * ones: what any local user would have seen in `ps` while the hook ran.
 */
async function makeSpyPath(directory: string, log: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  for (const tool of ['sha256sum', 'openssl', 'curl', 'od', 'sed', 'id']) {
    const real = (await run('sh', ['-c', `command -v ${tool}`], { cwd: directory })).stdout;
    const wrapper = join(directory, tool);
    await writeFile(wrapper, `#!/bin/sh\nprintf '%s\\n' "${tool} $*" >> '${log}'\nexec '${real}' "$@"\n`);
    await chmod(wrapper, 0o755);
  }
  return `${directory}:${process.env.PATH ?? ''}`;
}

describe('the sh post-receive hook with a real pipeline service', () => {
  let temp: string;
  let deps: PipelineDeps;
  let app: FastifyInstance;
  let url: string;
  let project: Project;
  let bare: string;
  let work: string;
  let secretFile: string;
  let argvLog: string;
  let pushEnv: NodeJS.ProcessEnv;

  const job = (number: number) => deps.store.findJob(project.id, String(number));
  const push = (args: string[], actor = 'alice') => run('git', ['push', bare, ...args], { cwd: work, env: { ...pushEnv, CONVEYOR_ACTOR: actor } });

  before(async () => {
    temp = await mkdtemp(join(tmpdir(), 'conveyor-shhook-'));
    const config = readPipelineConfig({ PIPELINE_DATABASE_PATH: join(temp, 'pipeline.db'), PIPELINE_DATA_PATH: join(temp, 'data'), PIPELINE_LOG_LEVEL: 'silent' });
    deps = openPipeline(config);
    bare = join(temp, 'server.git');
    await git(temp, ['init', '--quiet', '--bare', bare]);
    project = await admin.createProject(deps, { name: 'demo', repo: bare, visibility: 'private' });
    assert.match(project.triggerSecret, SECRET_PATTERN);
    app = await buildApp(deps);
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    secretFile = join(temp, 'demo.secret');
    await writeFile(secretFile, `${project.triggerSecret}\n`, { mode: 0o600 });
    argvLog = join(temp, 'argv.log');
    pushEnv = { ...TEST_GIT_ENV, PATH: await makeSpyPath(join(temp, 'spy'), argvLog) };
    work = join(temp, 'work');
    await mkdir(work);
    await git(work, ['init', '--quiet', '--initial-branch=main']);
  });
  after(async () => {
    await app.close();
    await deps.repos.close();
    await deps.store.close();
    await rm(temp, { recursive: true, force: true });
  });

  it('installs a hook that holds neither the secret nor a runtime', async () => {
    const output = io();
    const status = await runHookCommand(['install', '--repo', bare, '--url', `${url}/`, '--project', 'demo', '--secret-file', secretFile], output);
    assert.equal(status, 0, output.err.join(''));
    const hook = join(bare, 'hooks', 'post-receive');
    assert.deepEqual(output.out, [`installed ${hook}: pushes trigger project demo\n`]);
    assert.equal(output.err.join(''), '', 'od, sed, sha256sum and curl are all on PATH');
    const script = await readFile(hook, 'utf8');
    assert.ok(script.startsWith('#!/bin/sh\n'));
    assert.ok(!script.includes(project.triggerSecret), 'the secret is read at run time, not written into the hook');
    assert.ok(!/\bnode\b|conveyor pipeline hook post-receive/.test(script.replace(/^#.*$/gm, '')), 'no runtime is started');
    assert.ok(script.includes(`'${url}/api/v1/projects/demo/trigger'`));
    assert.equal((await stat(hook)).mode & 0o777, 0o755);

    const again = io();
    assert.equal(await runHookCommand(['install', '--repo', bare, '--url', url, '--project', 'demo', '--secret-file', secretFile], again), 2);
    assert.match(again.err.join(''), /already exists; pass --force/);
    assert.equal(await runHookCommand(['install', '--repo', bare, '--url', url, '--project', 'demo', '--secret-file', secretFile, '--force'], io()), 0);
  });

  it('creates one job per pushed ref with the right sha, ref, base and actor, and none for a deletion', async () => {
    const first = await commit(work, '.pipeline.yml', PIPELINE);
    await git(work, ['checkout', '--quiet', '-b', 'feature']);
    const featured = await commit(work, 'b.txt', '2\n');
    await git(work, ['checkout', '--quiet', 'main']);
    await writeFile(argvLog, '');

    const pushed = await push(['main', 'feature']);
    assert.equal(pushed.code, 0, pushed.stderr);
    assert.match(pushed.stderr, /remote: triggered refs\/heads\/main [0-9a-f]{7}: job [0-9A-Za-z]+/);
    assert.match(pushed.stderr, /remote: triggered refs\/heads\/feature [0-9a-f]{7}: job [0-9A-Za-z]+/);
    const jobs = [await job(1), await job(2)].sort((a, b) => String(a?.ref).localeCompare(String(b?.ref)));
    assert.deepEqual(
      jobs.map((found) => found && { sha: found.headSha, ref: found.ref, base: found.base, actor: found.actor, trigger: found.trigger }),
      [
        { sha: featured, ref: 'refs/heads/feature', base: null, actor: 'alice', trigger: 'push' },
        { sha: first, ref: 'refs/heads/main', base: null, actor: 'alice', trigger: 'push' },
      ],
    );

    const log = await readFile(argvLog, 'utf8');
    assert.match(log, /^sha256sum $/m, 'the spies saw the hook run');
    assert.match(log, /^curl -sS /m);
    assert.ok(!log.includes(project.triggerSecret), `the secret is on no command line:\n${log}`);
    assert.ok(!log.includes('sha256='), 'nor the signature');

    const second = await commit(work, 'a.txt', '3\n');
    const again = await push(['main', ':feature']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /remote: skipped refs\/heads\/feature: deleted, nothing to build/);
    const third = await job(3);
    assert.deepEqual(third && { sha: third.headSha, ref: third.ref, base: third.base }, { sha: second, ref: 'refs/heads/main', base: first });
    assert.equal(await job(4), null, 'the deletion created no job');
  });

  it('sends quotes, backslashes and unicode in the actor and the ref as valid JSON', async () => {
    const actor = 'Zoë "the builder" \\ O\'Neil';
    const sha = await commit(work, 'c.txt', '4\n');
    const pushed = await push(['main:refs/heads/we"ird\'ü'], actor);
    assert.equal(pushed.code, 0, pushed.stderr);
    assert.match(pushed.stderr, /remote: triggered refs\/heads\/we"ird'ü [0-9a-f]{7}: job /);
    const found = await job(4);
    assert.deepEqual(found && { sha: found.headSha, ref: found.ref, actor: found.actor }, { sha, ref: 'refs/heads/we"ird\'ü', actor });
  });

  it('refuses an actor with a control character, saying what to set, and creates nothing', async () => {
    await commit(work, 'd.txt', '5\n');
    const pushed = await push(['main'], 'mallory\ninjected');
    assert.equal(pushed.code, 0, 'the push itself has happened');
    assert.match(pushed.stderr, /remote: conveyor hook: the pusher's name contains control characters; set CONVEYOR_ACTOR to a plain name/);
    assert.equal(await job(5), null);
  });

  it('reports the service refusing a push (an invalid pipeline) with its status and message', async () => {
    await commit(work, '.pipeline.yml', 'tasks: [not a map]\n');
    const pushed = await push(['main']);
    assert.match(pushed.stderr, /remote: failed refs\/heads\/main [0-9a-f]{7}: HTTP 422: \{"error":"the pipeline at that commit is invalid"/);
    assert.equal(await job(5), null);
  });
});

describe('the sh hook signature', () => {
  let temp: string;
  let server: Server;
  let url: string;
  const received: Array<{ signature: string | undefined; body: Buffer }> = [];

  before(async () => {
    temp = await mkdtemp(join(tmpdir(), 'conveyor-shsig-'));
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({ signature: request.headers['x-hub-signature-256'] as string | undefined, body: Buffer.concat(chunks) });
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{"status":"created","job_id":"j1","tasks":1}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    assert.ok(address !== null && typeof address === 'object');
    url = `http://127.0.0.1:${address.port}`;
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(temp, { recursive: true, force: true });
  });

  // Short, exactly one block (64 bytes), longer than a block (hashed first), CRLF, non-ASCII bytes.
  const secrets: Array<[string, Buffer, Buffer]> = [
    ['short', Buffer.from('k\n'), Buffer.from('k')],
    ['64 bytes', Buffer.from('x'.repeat(64)), Buffer.from('x'.repeat(64))],
    ['65 bytes', Buffer.from(`${'y'.repeat(65)}\n`), Buffer.from('y'.repeat(65))],
    ['200 bytes, CRLF', Buffer.from(`${'z'.repeat(200)}\r\n`), Buffer.from('z'.repeat(200))],
    ['high bytes and NUL', Buffer.from([0xff, 0x00, 0x80, 0x36, 0x5c, 0x0a, 0x41]), Buffer.from([0xff, 0x00, 0x80, 0x36, 0x5c, 0x0a, 0x41])],
  ];
  for (const [name, file, key] of secrets) {
    it(`signs with HMAC-SHA256 as the service checks it: ${name} secret`, async () => {
      received.length = 0;
      const secretFile = join(temp, 'secret');
      await writeFile(secretFile, file);
      const output = io();
      assert.equal(await runHookCommand(['print', '--url', url, '--project', 'demo', '--secret-file', secretFile], output), 0);
      const hook = join(temp, 'hook.sh');
      await writeFile(hook, output.out.join(''));
      const result = await run('sh', [hook], { cwd: temp, stdin: `${'0'.repeat(40)} ${'a'.repeat(40)} refs/heads/main\n`, env: { ...process.env, CONVEYOR_ACTOR: 'bob' } });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `triggered refs/heads/main aaaaaaa: job j1`);
      assert.equal(received.length, 1);
      const [request] = received;
      assert.equal(request?.body.toString(), JSON.stringify({ sha: 'a'.repeat(40), base: '', ref: 'refs/heads/main', actor: 'bob' }));
      assert.equal(request?.signature, `sha256=${createHmac('sha256', key).update(request?.body ?? '').digest('hex')}`);
    });
  }

  it('signs with openssl where there is no sha256sum', async () => {
    received.length = 0;
    const secretFile = join(temp, 'secret');
    await writeFile(secretFile, 'fallback secret\n');
    const output = io();
    assert.equal(await runHookCommand(['print', '--url', url, '--project', 'demo', '--secret-file', secretFile], output), 0);
    const hook = join(temp, 'hook.sh');
    await writeFile(hook, output.out.join(''));
    // A PATH with only the tools the hook needs, openssl in place of sha256sum.
    const bin = join(temp, 'bin');
    await mkdir(bin, { recursive: true });
    for (const tool of ['od', 'sed', 'curl', 'openssl']) {
      await symlink((await run('sh', ['-c', `command -v ${tool}`], { cwd: temp })).stdout, join(bin, tool)).catch(() => undefined);
    }
    const result = await run('/bin/sh', [hook], { cwd: temp, stdin: `${'0'.repeat(40)} ${'b'.repeat(40)} refs/heads/main\n`, env: { PATH: bin, CONVEYOR_ACTOR: 'carol' } });
    assert.equal(result.code, 0, result.stderr);
    const [request] = received;
    assert.equal(request?.signature, `sha256=${createHmac('sha256', 'fallback secret').update(request?.body ?? '').digest('hex')}`);
  });

  it('refuses to print or install without a readable secret file or the required options', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['print', '--url', url, '--project', 'demo', '--secret-file', join(temp, 'absent')], /secret file '.*absent' does not exist/],
      [['print', '--url', url, '--project', 'demo'], /--secret-file is required/],
      [['print', '--url', 'ftp://x', '--project', 'demo', '--secret-file', join(temp, 'secret')], /http/],
      [['install', '--url', url, '--project', 'demo', '--secret-file', join(temp, 'secret')], /--repo is required/],
      [['install', '--repo', join(temp, 'nowhere'), '--url', url, '--project', 'demo', '--secret-file', join(temp, 'secret')], /is not a git repository/],
    ];
    await writeFile(join(temp, 'secret'), 'k\n');
    for (const [argv, message] of cases) {
      const output = io();
      assert.equal(await runHookCommand(argv, output), 2, argv.join(' '));
      assert.match(output.err.join(''), message, argv.join(' '));
    }
  });
});
