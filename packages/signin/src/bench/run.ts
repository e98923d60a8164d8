// `npm run bench:signin`: the sign-in service in its own process on real files, measured from this one.
//   1. GET /api/v1/session, 64 connections (target 5,000 req/s)
//   2. password sign-ins per second (and per core)
//   3. median time of a sign-in for an unknown account vs a wrong password (target ratio 0.9..1.1)
//   4. 50 parallel wrong guesses against one account (how many 401s, how many 429s)
//   5. another user's sign-in latency while 8 clients guess wrong passwords (target p50 <= 2x idle p50)
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openSigninAdmin } from '../admin.js';
import { addMember } from '../domain/members.js';
import { ensureSystemRealm } from '../domain/realms.js';
import { createUser } from '../domain/users.js';
import { guessInParallel, percentile, signIn, startAttack, timeSignIns } from './attack.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the part of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const PASSWORD = 'bench password 1';
const TIMING_ROUNDS = 80;

function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; url: string }> {
  const script = fileURLToPath(new URL('./server.js', import.meta.url));
  const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (\S+)/.exec(output);
      if (match?.[1] !== undefined) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

async function seed(env: NodeJS.ProcessEnv): Promise<void> {
  const admin = await openSigninAdmin({ env });
  try {
    await ensureSystemRealm(admin.deps.store, admin.deps.clock, { registerDefaultHosts: true });
    for (const username of ['bench', 'victim', 'target', 'other']) {
      await createUser(admin.deps, { username, password: PASSWORD });
      await addMember(admin.deps, { realm: 'system', user: username });
    }
  } finally {
    await admin.close();
  }
}

async function measureTiming(url: string, rounds: number): Promise<{ unknown: number; wrong: number }> {
  const unknown: number[] = [];
  const wrong: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    // Within the attempt limits, as a real user would be: each round from its own address, and a
    // correct sign-in (not timed) before 'bench' reaches its 10 failures.
    if (i % 9 === 8) await signIn(url, 'bench', PASSWORD, '10.70.0.1');
    // Interleaved, so drift in machine load hits both series alike.
    for (const [identifier, into] of [[`nobody-${i}`, unknown], ['bench', wrong]] as const) {
      const start = performance.now();
      const { status } = await signIn(url, identifier, 'not the password', `10.71.${i}.${into === unknown ? 1 : 2}`);
      into.push(performance.now() - start);
      if (status !== 401) throw new Error(`expected 401, got ${status}`);
    }
  }
  return { unknown: median(unknown), wrong: median(wrong) };
}

const LATENCY_ROUNDS = 40;

/** Another user's sign-in times while `start` runs an attack; the attack's answers counted. */
async function timeDuring(url: string, start: () => Promise<{ stop(): Promise<Record<string, number>> }>): Promise<{ times: number[]; answers: Record<string, number> }> {
  const attack = await start();
  const times = await timeSignIns(url, 'other', PASSWORD, LATENCY_ROUNDS);
  return { times, answers: await attack.stop() };
}

async function measureUnderAttack(url: string): Promise<string[]> {
  const parallel = await guessInParallel(url, 'victim', 50);
  const idle = await timeSignIns(url, 'other', PASSWORD, LATENCY_ROUNDS);
  // The incident's rate: 160 guesses a second at one account, here from 8 clients.
  const incident = await timeDuring(url, () => startAttack(url, 8, 'one-account', 'target', 20));
  // The same 8 clients back to back, as fast as this machine lets them (their CPU is taken from the server's).
  const flood = await timeDuring(url, () => startAttack(url, 8, 'one-account', 'target-2'));
  // Not a target: 8 clients that forge X-Forwarded-For and never repeat an identifier.
  const spray = await timeDuring(url, () => startAttack(url, 8, 'spray', 'spray'));
  const p50 = (times: number[]) => percentile(times, 0.5).toFixed(1);
  const line = (what: string, run: { times: number[]; answers: Record<string, number> }) =>
    `... ${what}: p50 ${p50(run.times)} ms (${(percentile(run.times, 0.5) / percentile(idle, 0.5)).toFixed(2)}x idle), p90 ${percentile(run.times, 0.9).toFixed(1)} ms; attack answers ${JSON.stringify(run.answers)}`;
  return [
    `50 parallel wrong guesses against one account: ${JSON.stringify(parallel)}`,
    `sign-in of another user, idle: p50 ${p50(idle)} ms, p90 ${percentile(idle, 0.9).toFixed(1)} ms (${LATENCY_ROUNDS} sign-ins)`,
    line('while 8 clients guess one account at 160/s in total (the incident)', incident),
    line('while the 8 clients guess one account back to back', flood),
    line('while 8 clients spray new identifiers from forged addresses (no target)', spray),
  ];
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'signin-bench-'));
  // The child gets only what it needs: the AUTH_* variables.
  const env = { AUTH_DATABASE_PATH: join(dir, 'signin.db'), AUTH_REALMS_PATH: join(dir, 'realms'), AUTH_PORT: '0', AUTH_HOST: '127.0.0.1' };
  await seed(env);
  const { child, url } = await startServer(env);
  try {
    const { cookie } = await signIn(url, 'bench', PASSWORD);
    // Warm up, then measure the session check.
    await autocannon({ url: `${url}/api/v1/session`, connections: 64, duration: 2, headers: { cookie } });
    const session = await autocannon({ url: `${url}/api/v1/session`, connections: 64, duration: 10, headers: { cookie } });

    const cores = availableParallelism();
    const signIns = await autocannon({
      url: `${url}/api/v1/login/password`,
      method: 'POST',
      connections: cores * 2,
      duration: 10,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'bench', password: PASSWORD }),
    });
    const timing = await measureTiming(url, TIMING_ROUNDS);
    const attack = await measureUnderAttack(url);

    const lines = [
      `GET /api/v1/session, 64 connections, 10 s: ${session.requests.average.toFixed(0)} req/s (p50 ${session.latency.p50} ms, p99 ${session.latency.p99} ms, non-2xx ${session.non2xx}, errors ${session.errors})`,
      `POST /api/v1/login/password, ${cores * 2} connections, 10 s: ${signIns.requests.average.toFixed(1)} sign-ins/s on ${cores} cores = ${(signIns.requests.average / cores).toFixed(1)} per core (non-2xx ${signIns.non2xx})`,
      `median sign-in, unknown account: ${timing.unknown.toFixed(1)} ms; wrong password: ${timing.wrong.toFixed(1)} ms; ratio ${(timing.unknown / timing.wrong).toFixed(3)} (${TIMING_ROUNDS} each, interleaved)`,
      ...attack,
      `load average at the end (other work on this machine): ${loadavg().map((v) => v.toFixed(2)).join(' ')}`,
    ];
    console.log(lines.join('\n'));
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
