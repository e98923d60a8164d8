// `conveyor serve` as a process: both services on one port, files under CONVEYOR_DATA_PATH, SIGTERM.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runCli, startCli } from '../testing/run-cli.js';

describe('conveyor serve', () => {
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'conveyor-serve-both-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('--help lists its variables; the top-level help lists the command', async () => {
    const help = await runCli(['serve', '--help'], {});
    assert.equal(help.code, 0);
    for (const name of ['CONVEYOR_PORT', 'CONVEYOR_HOST', 'CONVEYOR_DATA_PATH', 'CONVEYOR_PUBLIC_URL']) assert.match(help.stdout, new RegExp(name));
    assert.match((await runCli(['--help'], {})).stdout, /conveyor serve /);
  });

  it('refuses arguments and invalid variables with exit 2 naming the variable', async () => {
    assert.equal((await runCli(['serve', 'now'], {})).code, 2);
    const bad = await runCli(['serve'], { CONVEYOR_PORT: 'eighty', CONVEYOR_DATA_PATH: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /CONVEYOR_PORT/);
    const badUrl = await runCli(['serve'], { CONVEYOR_PUBLIC_URL: 'ftp://x', CONVEYOR_DATA_PATH: dir });
    assert.equal(badUrl.code, 2);
    assert.match(badUrl.stderr, /CONVEYOR_PUBLIC_URL/);
  });

  it('serves both services on one port with files under CONVEYOR_DATA_PATH, and stops on SIGTERM', async () => {
    const data = join(dir, 'data');
    const server = await startCli(['serve'], { CONVEYOR_PORT: '0', CONVEYOR_DATA_PATH: data, PIPELINE_LOG_LEVEL: 'warn' }, /Listening on/);
    try {
      const url = /Listening on (http:\/\/\S+)/.exec(server.line)?.[1] ?? '';
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const realm = await fetch(`${url}/api/v1/realm`);
      assert.equal(realm.status, 200);
      assert.equal(((await realm.json()) as { slug: string }).slug, 'system');
      assert.equal((await fetch(`${url}/api/v1/session`)).status, 401);
      assert.equal((await fetch(`${url}/api/v1/projects/none/jobs/1`)).status, 404);
      const pipelineDoc = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
      assert.ok('/api/v1/tasks/claim' in pipelineDoc.paths);
      const signinDoc = (await (await fetch(`${url}/api/v1/signin/openapi.json`)).json()) as { paths: Record<string, unknown> };
      assert.ok('/api/v1/login/password' in signinDoc.paths);
      for (const file of ['pipeline.db', 'signin.db', 'realms']) assert.ok(existsSync(join(data, file)), file);
      const exited = new Promise<number | null>((resolve) => server.child.on('exit', resolve));
      server.child.kill('SIGTERM');
      assert.equal(await exited, 0);
      assert.match(server.output(), /Stopped/);
    } finally {
      server.child.kill('SIGKILL');
    }
  });
});
