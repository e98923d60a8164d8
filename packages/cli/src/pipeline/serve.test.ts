import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startCli } from '../testing/run-cli.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'T',
  GIT_AUTHOR_EMAIL: 't@example.test',
  GIT_COMMITTER_NAME: 'T',
  GIT_COMMITTER_EMAIL: 't@example.test',
};

describe('conveyor pipeline serve', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let sha: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-serve-'));
    env = { PIPELINE_DATABASE_PATH: join(dir, 'pipeline.db'), PIPELINE_DATA_PATH: join(dir, 'data'), PIPELINE_PORT: '0', PIPELINE_LOG_LEVEL: 'warn' };
    const repo = join(dir, 'repo');
    spawnSync('git', ['init', '--quiet', '--initial-branch=main', repo]);
    await writeFile(join(repo, '.pipeline.yml'), 'tasks:\n  hello:\n    image: x\n    script: [echo hello]\n');
    spawnSync('git', ['-C', repo, 'add', '.'], { env: GIT_ENV });
    spawnSync('git', ['-C', repo, 'commit', '--quiet', '-m', 'init'], { env: GIT_ENV });
    sha = spawnSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout.trim();
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('refuses invalid configuration with exit 2 naming the variable', async () => {
    const result = await runCli(['pipeline', 'serve'], { ...env, PIPELINE_PORT: 'eighty' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /PIPELINE_PORT/);
  });

  it('serves, sees admin changes at once, and on SIGTERM finishes in-flight requests before exiting', async () => {
    const server = await startCli(['pipeline', 'serve'], env, /Listening on/);
    try {
      const url = /Listening on (http:\/\/\S+)/.exec(server.line)?.[1] ?? '';
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);

      // Made by the CLI while the server runs: usable at the next request.
      const project = JSON.parse((await runCli(['pipeline', 'admin', 'project', 'create', '--name', 'live', '--repo', join(dir, 'repo'), '--json'], env)).stdout) as { trigger_secret: string };
      const worker = JSON.parse((await runCli(['pipeline', 'admin', 'worker', 'create', '--name', 'w', '--json'], env)).stdout) as { token: string };
      const body = JSON.stringify({ sha, ref: 'refs/heads/main' });
      const signature = `sha256=${createHmac('sha256', project.trigger_secret).update(body).digest('hex')}`;
      const created = await fetch(`${url}/api/v1/projects/live/jobs`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } });
      assert.equal(created.status, 200);

      const claim = (wait: number) =>
        fetch(`${url}/api/v1/tasks/claim?wait=${wait}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${worker.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ arches: ['amd64'], features: [], name: 'w' }),
        });
      assert.equal((await claim(0)).status, 200);

      // A long poll is in flight when SIGTERM arrives: it is answered, then the process exits cleanly.
      const inFlight = claim(30);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exited = new Promise<number | null>((resolve) => server.child.on('exit', resolve));
      server.child.kill('SIGTERM');
      assert.equal((await inFlight).status, 204);
      assert.equal(await exited, 0);
      assert.match(server.output(), /Stopped/);

      const revoked = await runCli(['pipeline', 'admin', 'worker', 'revoke', 'w'], env);
      assert.equal(revoked.code, 0, 'the database was closed cleanly and is usable');
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
