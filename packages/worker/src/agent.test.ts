import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from './agent.js';
import { ProtocolClient } from './client.js';
import type { WorkerConfig } from './config.js';
import { hostBaseEnv, ShellExecutor } from './executors/shell.js';

test('a task payload the worker cannot read is failed at once, not left to bounce until its lease runs out', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conveyor-agent-'));
  const completions: unknown[] = [];
  let claims = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url?.startsWith('/api/v1/tasks/claim')) {
      claims += 1;
      if (claims > 1) return void res.writeHead(204).end();
      // A protocol mismatch: a field this worker's schema does not know, and no `script`.
      const endpoints = { source: `${base}/s`, log: `${base}/l`, artifact: `${base}/a`, heartbeat: `${base}/h`, done: `${base}/done` };
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ task: { id: 't1', name: 'odd', future_field: true, endpoints } }));
    }
    if (req.url === '/done') completions.push(JSON.parse(Buffer.concat(chunks).toString()));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ state: 'failure', attempt: 1 }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: WorkerConfig = {
    url, token: 't', name: 'agent-test', arches: ['amd64'], features: [], executor: 'shell', concurrency: 1, workDir: dir,
    graceSeconds: 1, keepWork: false, verbose: false, pollWaitSeconds: 0, container: { cli: 'podman', globalArgs: [], runArgs: [], network: null }, runAs: null,
  };
  const lines: string[] = [];
  const client = new ProtocolClient({ url, token: 't' });
  const agent = new Agent(config, client, new ShellExecutor({ killGraceMs: 1000, baseEnv: hostBaseEnv(process.env) }), (line) => lines.push(line));
  try {
    const running = agent.run();
    while (completions.length === 0) await new Promise((r) => setTimeout(r, 20));
    agent.shutdown();
    await running;
    assert.equal(completions.length, 1);
    const outcome = completions[0] as { success: boolean; exit_code: number | null; error: string };
    assert.equal(outcome.success, false);
    assert.equal(outcome.exit_code, null);
    assert.match(outcome.error, /^worker could not read the task: unexpected claim payload: .*script/);
    assert.match(lines.join('\n'), /claim failed: unexpected claim payload/);
  } finally {
    client.close();
    server.closeAllConnections();
    server.close();
    await rm(dir, { recursive: true, force: true });
  }
});
