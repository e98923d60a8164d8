// `npm run bench:pipeline`: measures the pipeline service as a real server process (the CLI's
// `conveyor pipeline serve`) over HTTP, prints a table and writes .bench/pipeline.json.
//
// Environment knobs (none needed for the documented run):
//   BENCH_QUICK=1               a scaled-down run for checking the benchmark itself (figures not comparable)
//   BENCH_SERVER_LOG=<file>     append everything the server and baseline print to <file>
//   BENCH_SERVER_NODE_ARGS=...  extra node flags for the server and the baseline, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
//   BENCH_ONLY=push,unread-bodies,claims,jobs,logs,artifact,sse,session-reads   run only some steps
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PipelineApi } from './api.js';
import { randomPool } from './body.js';
import { findRepositoryRoot } from '../testing/repository-root.js';
import { adminCli, createBenchRepository, describeCheckout } from './fixtures.js';
import { keepAliveAgent } from './http-client.js';
import { freePort, peakRss, startChild, type ChildServer } from './processes.js';
import { measurePushPath, type PushSettings } from './push.js';
import { say } from './progress.js';
import { formatTable, writeJson } from './report.js';
import { rowsOf, TARGETS, type Results } from './results.js';
import { MIB, round } from './stats.js';
import { measureArtifactUpload, measureClaims, measureJobCreation, measureLogIngest, type Bench, type Settings } from './steps.js';
import { measureSseLatency } from './sse.js';
import { measureUnreadBodies } from './unread-bodies.js';
import { measureSessionReads } from './session-reads.js';

const QUICK = process.env.BENCH_QUICK === '1';

const SETTINGS: Settings = {
  concurrency: 32,
  tasksPerJob: 250,
  claimJobs: QUICK ? 2 : 20,
  jobCreations: QUICK ? 10 : 50,
  jobCreationWarmup: 3,
  logBytes: (QUICK ? 8 : 48) * MIB,
  artifactBytes: (QUICK ? 64 : 1024) * MIB,
  sseAppends: QUICK ? 50 : 200,
  sseChunkBytes: 100,
};

/**
 * Seconds. The lease is three intervals: 180 s instead of the default 30 s, because the tasks of the
 * claims step are completed only after the measurement (a real worker would be heartbeating them), and
 * lapsed leases would otherwise be reaped in the middle of the measured claims.
 */
const SERVER_HEARTBEAT_INTERVAL = 60;

const PUSH_SETTINGS: PushSettings = { pushes: QUICK ? 5 : 20, warmup: 2, burst: 50, burstRounds: QUICK ? 1 : 5 };

// The push step runs first: its worker would otherwise claim the tasks the other steps leave waiting.
type Step = 'push' | 'unread-bodies' | 'claims' | 'jobs' | 'logs' | 'artifact' | 'sse' | 'session-reads';
const STEPS: Step[] = ['push', 'unread-bodies', 'claims', 'jobs', 'logs', 'artifact', 'sse', 'session-reads'];
/** The steps measured on `conveyor pipeline serve`; session-reads runs on `conveyor serve` of its own. */
const PIPELINE_SERVE_STEPS: Step[] = ['push', 'unread-bodies', 'claims', 'jobs', 'logs', 'artifact', 'sse'];
/** session-reads: alternating rounds of anonymous and session reads, this many seconds each. */
const SESSION_READ_SECONDS = QUICK ? 1 : 3;
const SESSION_READ_ROUNDS = QUICK ? 3 : 7;
const only = process.env.BENCH_ONLY?.split(',').map((step) => step.trim());
const enabled = (step: Step): boolean => only === undefined || only.includes(step);

/** Inherited PIPELINE_* settings would change what is measured; the benchmark sets its own. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PIPELINE_')));
}

/** Node warnings and pino lines at warn level or above from the server's output, without repeats. */
function warningsIn(output: string): string[] {
  const lines = output.split('\n').filter((line) => /Warning|"level":(40|50|60)\b/.test(line));
  return [...new Set(lines.map((line) => line.trim().slice(0, 300)))].slice(0, 10);
}

/** Starts the server and its project and worker, then runs the enabled steps in order. */
async function measure(root: string, temp: string, results: Results): Promise<string> {
  const conveyorBin = join(root, 'packages', 'cli', 'bin', 'conveyor.js');
  const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
  say('preparing: git repository with two pipeline files');
  const repo = await createBenchRepository(join(temp, 'repo'), SETTINGS.tasksPerJob);
  const port = await freePort();
  const dataPath = join(temp, 'data');
  const env: NodeJS.ProcessEnv = {
    ...cleanEnvironment(),
    PIPELINE_DATABASE_PATH: join(temp, 'pipeline.db'),
    PIPELINE_DATA_PATH: dataPath,
    PIPELINE_PORT: String(port),
    PIPELINE_HOST: '127.0.0.1',
    PIPELINE_LOG_LEVEL: 'warn',
    PIPELINE_HEARTBEAT_INTERVAL: String(SERVER_HEARTBEAT_INTERVAL),
  };
  say(`starting: conveyor pipeline serve on 127.0.0.1:${port}${serverNodeArgs.length > 0 ? ` (node ${serverNodeArgs.join(' ')})` : ''}`);
  let server: ChildServer | null = null;
  const agent = keepAliveAgent(SETTINGS.concurrency);
  try {
    server = await startChild([...serverNodeArgs, conveyorBin, 'pipeline', 'serve'], env, 'Listening on');
    say('preparing: project and worker through the admin CLI');
    const admin = adminCli(conveyorBin, env);
    const project = await admin.createProject('bench', repo.path);
    const worker = await admin.createWorker('w1');
    const bench: Bench = {
      settings: SETTINGS,
      api: new PipelineApi(`http://127.0.0.1:${port}`, { name: 'bench', triggerSecret: project.triggerSecret }, worker.token),
      agent,
      pool: randomPool(),
      repo,
      serverPid: server.pid,
      dataPath,
      scratch: temp,
      baselineScript: join(root, 'packages', 'pipeline', 'dist', 'bench', 'baseline-server.js'),
      nodeArgs: serverNodeArgs,
      env: cleanEnvironment(),
    };
    if (enabled('push')) {
      const scratch = join(temp, 'push');
      await mkdir(scratch);
      results.push = await measurePushPath({ conveyorBin, serverEnv: env, env: cleanEnvironment(), baseUrl: bench.api.baseUrl, scratch, settings: PUSH_SETTINGS });
    }
    // First, while the server is fresh: it compares RSS against idle.
    if (enabled('unread-bodies')) results.unreadBodies = await measureUnreadBodies(bench);
    if (enabled('claims')) Object.assign(results, await measureClaims(bench));
    if (enabled('jobs')) results.jobCreation = await measureJobCreation(bench);
    // The log and artifact steps claim tasks of their own: make sure there are some to claim.
    if (enabled('logs') || enabled('artifact') || enabled('sse')) await bench.api.createJob(agent, repo.matrix64Sha);
    if (enabled('logs')) results.logIngest = await measureLogIngest(bench);
    if (enabled('artifact')) results.artifact = await measureArtifactUpload(bench);
    if (enabled('sse')) results.sse = await measureSseLatency(bench);
    results.serverPeakRssBytes = peakRss(server.pid);
  } finally {
    agent.destroy();
    await server?.stop();
  }
  return server.output();
}

async function main(): Promise<void> {
  const root = findRepositoryRoot();
  const temp = await mkdtemp(join(tmpdir(), 'conveyor-bench-'));
  const results: Results = {};
  const started = Date.now();
  const loadBefore = loadavg().map((value) => round(value, 2));
  say(`pipeline benchmark${QUICK ? ' (QUICK: scaled down, figures not comparable)' : ''}: node ${process.version}, ${cpus().length} cores, temp ${temp}`);
  let serverOutput = '';
  try {
    if (PIPELINE_SERVE_STEPS.some(enabled)) serverOutput = await measure(root, temp, results);
    if (enabled('session-reads')) {
      results.sessionReads = await measureSessionReads({
        conveyorBin: join(root, 'packages', 'cli', 'bin', 'conveyor.js'),
        temp,
        env: cleanEnvironment(),
        nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== ''),
        connections: SETTINGS.concurrency,
        secondsPerRound: SESSION_READ_SECONDS,
        rounds: SESSION_READ_ROUNDS,
      });
    }
  } finally {
    say('cleaning up: removing the temp dir');
    await rm(temp, { recursive: true, force: true });
  }

  const rows = rowsOf(results);
  const checkout = await describeCheckout(root);
  const loadAfter = loadavg().map((value) => round(value, 2));
  const serverWarnings = warningsIn(serverOutput);
  console.log('');
  console.log(`Pipeline service benchmark: node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`);
  console.log(`Checkout ${checkout.commit?.slice(0, 10) ?? 'unknown'}${checkout.dirty ? ' plus uncommitted changes to the service' : ''}.`);
  console.log(`Load average before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')} (other work shares the machine).`);
  console.log('MB = 10^6 bytes. Server and load generator share the machine.');
  console.log('');
  console.log(formatTable(rows));
  if (serverWarnings.length > 0) {
    console.log('');
    console.log('The server process printed warnings:');
    for (const line of serverWarnings) console.log(`  ${line}`);
  }
  const output = join(root, '.bench', 'pipeline.json');
  await writeJson(output, {
    benchmark: 'pipeline',
    command: 'npm run bench:pipeline',
    quick: QUICK,
    steps: STEPS.filter(enabled),
    checkout,
    date: new Date().toISOString(),
    durationSeconds: round((Date.now() - started) / 1000, 1),
    // The machine is shared: 1, 5 and 15 minute load averages before and after the run.
    machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? null, node: process.version, platform: process.platform, loadBefore, loadAfter },
    settings: { ...SETTINGS, push: PUSH_SETTINGS, serverHeartbeatInterval: SERVER_HEARTBEAT_INTERVAL, sessionReadSeconds: SESSION_READ_SECONDS, sessionReadRounds: SESSION_READ_ROUNDS },
    targets: TARGETS,
    results,
    serverWarnings,
    table: rows,
  });
  console.log('');
  console.log(`Written to ${output}`);
  const missed = rows.filter((row) => row.met === false);
  if (missed.length > 0) console.log(`Targets missed: ${missed.map((row) => row.metric).join('; ')}`);
}

main().catch((error: unknown) => {
  console.error(`bench:pipeline failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
