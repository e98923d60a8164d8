// Step `session-reads`: job reads with a session cookie (the in-process check, cached for up to 2 s) on a
// private project, against the same reads anonymous on a public project, on `conveyor serve` in its own
// process. The pipeline package does not import the sign-in package: the user is made with the sign-in
// admin CLI on the same files, and the session comes from a real sign-in over HTTP.
import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PipelineApi } from './api.js';
import { adminCli } from './fixtures.js';
import { call, jsonOf, keepAliveAgent } from './http-client.js';
import { freePort, startChild } from './processes.js';
import { say } from './progress.js';
import type { ReportRow } from './report.js';

const run = promisify(execFile);

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
// autocannon ships no types; this is the part of its API used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export const SESSION_READ_TARGET_RATIO = 0.8;
const PASSWORD = 'bench session password';

export interface ReadRate {
  requestsPerSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
}

export interface SessionReadFigures {
  connections: number;
  secondsPerRound: number;
  rounds: number;
  tasksPerJob: number;
  session: ReadRate;
  anonymous: ReadRate;
  /** The median over the rounds of session / anonymous requests per second of the round's pair. */
  ratio: number;
  roundRatios: number[];
}

/** A repository with one commit whose pipeline has a 4-variant matrix: a job read of a usual size. */
async function createSmallRepository(path: string): Promise<string> {
  await mkdir(path, { recursive: true });
  const git = async (args: string[]): Promise<string> =>
    (await run('git', ['-C', path, '-c', 'user.name=Conveyor Bench', '-c', 'user.email=bench@conveyor.invalid', '-c', 'commit.gpgsign=false', ...args])).stdout.trim();
  await git(['init', '-q']);
  await writeFile(join(path, '.pipeline.yml'), 'tasks:\n  t:\n    script: ["true"]\n    matrix:\n      n: ["1", "2", "3", "4"]\n');
  await git(['add', '.']);
  await git(['commit', '-q', '-m', 'four tasks']);
  return git(['rev-parse', 'HEAD']);
}

/** `conveyor signin admin ... --json` on the server's sign-in files; secrets on standard input. */
async function signinAdmin(conveyorBin: string, env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<Record<string, unknown>> {
  const child = execFile(process.execPath, [conveyorBin, 'signin', 'admin', ...args, '--json'], { env });
  child.stdin?.end(stdin);
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`signin admin ${args.join(' ')} exited ${code}: ${stderr}${stdout}`);
  return JSON.parse(stdout) as Record<string, unknown>;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

function rateOf(result: AutocannonResult, seconds: number): ReadRate {
  return { requestsPerSecond: result.requests.total / seconds, requests: result.requests.total, p50Ms: result.latency.p50, p99Ms: result.latency.p99 };
}

/** Sums rounds of one kind: total requests over total seconds, the worst p50 and p99 of the rounds. */
function combine(rounds: ReadRate[], seconds: number): ReadRate {
  const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
  return {
    requestsPerSecond: requests / (seconds * rounds.length),
    requests,
    p50Ms: Math.max(...rounds.map((round) => round.p50Ms)),
    p99Ms: Math.max(...rounds.map((round) => round.p99Ms)),
  };
}

async function load(url: string, headers: Record<string, string>, connections: number, seconds: number): Promise<AutocannonResult> {
  const result = await autocannon({ url, connections, duration: seconds, headers });
  // A read that is not 200 (a 404 for a cookie the server did not take) would measure the wrong thing.
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return result;
}

/**
 * Starts `conveyor serve` on `temp`, makes a user (sign-in admin CLI), a private project it owns and a
 * public one (pipeline admin CLI) with one job each, signs in, then alternates rounds of anonymous and
 * session reads of the job, `connections` connections each.
 */
export async function measureSessionReads(options: {
  conveyorBin: string;
  temp: string;
  env: NodeJS.ProcessEnv;
  nodeArgs: string[];
  connections: number;
  secondsPerRound: number;
  rounds: number;
}): Promise<SessionReadFigures> {
  const { conveyorBin, temp, connections, secondsPerRound, rounds } = options;
  const sha = await createSmallRepository(join(temp, 'session-repo'));
  const port = await freePort();
  const data = join(temp, 'serve-data');
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(options.env).filter(([name]) => !name.startsWith('CONVEYOR_') && !name.startsWith('AUTH_'))),
    CONVEYOR_DATA_PATH: data,
    CONVEYOR_PORT: String(port),
    CONVEYOR_HOST: '127.0.0.1',
    PIPELINE_LOG_LEVEL: 'warn',
  };
  say(`session-reads: starting conveyor serve on 127.0.0.1:${port}`);
  const server = await startChild([...options.nodeArgs, conveyorBin, 'serve'], env, 'Listening on');
  const agent = keepAliveAgent(4);
  try {
    // The same files the server uses, by the paths `conveyor serve` derives from CONVEYOR_DATA_PATH.
    const adminEnv = { ...env, AUTH_DATABASE_PATH: join(data, 'signin.db'), AUTH_REALMS_PATH: join(data, 'realms'), PIPELINE_DATABASE_PATH: join(data, 'pipeline.db'), PIPELINE_DATA_PATH: join(data, 'pipeline') };
    const user = await signinAdmin(conveyorBin, adminEnv, ['user', 'create', '--username', 'bench', '--password-stdin'], `${PASSWORD}\n`);
    await signinAdmin(conveyorBin, adminEnv, ['member', 'add', '--realm', 'system', '--user', 'bench']);
    const userId = String(user.id);
    const pipelineAdmin = adminCli(conveyorBin, adminEnv);
    const url = `http://127.0.0.1:${port}`;
    const jobOf = async (name: string, visibility: 'private' | 'public'): Promise<string> => {
      const project = await pipelineAdmin.createProject(name, join(temp, 'session-repo'), ['--visibility', visibility, '--owner', userId]);
      const created = await new PipelineApi(url, { name, triggerSecret: project.triggerSecret }, '').createJob(agent, sha);
      return `${url}/api/v1/projects/${name}/jobs/${created.jobId}`;
    };
    const privateJob = await jobOf('owned', 'private');
    const publicJob = await jobOf('open', 'public');
    const signIn = await call({
      method: 'POST',
      url: `${url}/api/v1/login/password`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ identifier: 'bench', password: PASSWORD }),
      agent,
    });
    if (signIn.status !== 200) throw new Error(`sign-in: HTTP ${signIn.status} ${signIn.body.toString('utf8')}`);
    const setCookie = ([] as string[]).concat(signIn.headers['set-cookie'] ?? []).find((cookie) => cookie.startsWith('auth_session_system='));
    if (setCookie === undefined) throw new Error('sign-in: no auth_session_system cookie');
    const cookie = setCookie.split(';')[0] ?? '';
    const read = await call({ method: 'GET', url: privateJob, headers: { cookie }, agent });
    const tasks = (jsonOf(read, 'job read') as { tasks: unknown[] }).tasks.length;

    say(`session-reads: warming up, then ${rounds} rounds of ${secondsPerRound} s each way, ${connections} connections`);
    await load(publicJob, {}, connections, 2);
    await load(privateJob, { cookie }, connections, 2);
    const anonymous: ReadRate[] = [];
    const session: ReadRate[] = [];
    // Alternating rounds: drift in the shared machine's load falls on both sides alike.
    for (let round = 0; round < rounds; round += 1) {
      anonymous.push(rateOf(await load(publicJob, {}, connections, secondsPerRound), secondsPerRound));
      session.push(rateOf(await load(privateJob, { cookie }, connections, secondsPerRound), secondsPerRound));
      say(`  round ${round + 1}: anonymous ${anonymous.at(-1)?.requestsPerSecond.toFixed(0)}/s, session ${session.at(-1)?.requestsPerSecond.toFixed(0)}/s`);
    }
    // Per pair, then the median: one round slowed by the machine's other work does not decide the ratio.
    const roundRatios = session.map((rate, index) => rate.requestsPerSecond / (anonymous[index]?.requestsPerSecond ?? Number.NaN));
    const figures = { anonymous: combine(anonymous, secondsPerRound), session: combine(session, secondsPerRound) };
    return { connections, secondsPerRound, rounds, tasksPerJob: tasks, ...figures, ratio: median(roundRatios), roundRatios };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

export function sessionReadRows(figures: SessionReadFigures | undefined): ReportRow[] {
  if (figures === undefined) return [];
  const label = `${figures.tasksPerJob}-task job read, ${figures.connections} connections`;
  return [
    { metric: `${label}, anonymous, public project`, value: `${figures.anonymous.requestsPerSecond.toFixed(0)}/s (p50 ${figures.anonymous.p50Ms} ms)`, target: '-', met: null },
    { metric: `${label}, session cookie, private project`, value: `${figures.session.requestsPerSecond.toFixed(0)}/s (p50 ${figures.session.p50Ms} ms)`, target: '-', met: null },
    {
      metric: `Session / anonymous read rate, median of ${figures.rounds} paired rounds`,
      value: figures.ratio.toFixed(2),
      target: `>= ${SESSION_READ_TARGET_RATIO}`,
      met: figures.ratio >= SESSION_READ_TARGET_RATIO,
    },
  ];
}
