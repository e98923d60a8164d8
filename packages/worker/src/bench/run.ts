// `npm run bench:worker`: the real pipeline service and a real `conveyor worker` process (shell
// executor), measured from the outside. Prints a table; docs/benchmarks.md holds the figures.
//   1. Tasks per minute through one worker with --concurrency 8 on trivial scripts, next to a
//      protocol-only baseline: 8 loops doing the same HTTP calls as the worker (claim, heartbeat,
//      source, log, complete) without running anything. Close figures mean the server is the limit.
//   2. Log throughput of one task printing 100 MB (a masked secret set), and the worker's peak RSS.
// BENCH_QUICK=1 scales both down, for checking the benchmark itself.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ProtocolClient } from '../client.js';
import { byName, Stack } from '../e2e/stack.js';
import { commitFiles, makeRepo } from '../testing/git.js';

const QUICK = process.env.BENCH_QUICK === '1';
const TASKS = QUICK ? 40 : 400;
const LOG_BYTES = (QUICK ? 10 : 100) * 1_000_000;
const CONCURRENCY = 8;

/** `tasks` trivial tasks as matrix variants, 200 to a task (the service allows 256 variants). */
function matrixPipeline(tasks: number, requires: string): string {
  const perTask = Math.min(tasks, 200);
  const values = Array.from({ length: perTask / 10 }, (_, i) => String(i)).join(', ');
  const body = (name: string): string =>
    `  ${name}:\n    requires: [${requires}]\n    matrix:\n      a: [${values}]\n      b: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n    script:\n      - "true"\n`;
  return `image: none\ntasks:\n${Array.from({ length: tasks / perTask }, (_, i) => body(`trivial${i}`)).join('')}`;
}

/** CPU time a process and its waited-for children (the task shells) have used, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14-17 of the line, 12-15 after the command name.
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
  return (ticks * 1000) / 100;
}

/** Peak resident set size of a process, from the kernel's high-water mark, in MB. */
function peakRssMb(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? NaN : Number(match[1]) / 1024;
}

interface Rate {
  perMinute: number;
  /** CPU per task of the worker (with its task shells) and of the server, in ms. */
  workerCpuMs: number;
  serverCpuMs: number;
}

async function measureWorkerRate(stack: Stack, project: { id: string; trigger_secret: string }, repo: string): Promise<Rate> {
  const sha = await commitFiles(repo, { '.pipeline.yml': matrixPipeline(TASKS, 'rate') }, 'rate');
  const worker = await stack.startWorker('bench-rate', ['--features', 'rate', '--concurrency', String(CONCURRENCY), '--poll-wait', '30']);
  const workerCpu = cpuMs(worker.child.pid!);
  const serverCpu = cpuMs(stack.server.child.pid!);
  const started = Date.now();
  const job = await stack.createJob(project, sha);
  const read = await stack.waitForJob(project.id, job, 600_000);
  const minutes = (Date.now() - started) / 60_000;
  if (read.job.state !== 'success') throw new Error(`rate job ended ${read.job.state}`);
  const rate = { perMinute: TASKS / minutes, workerCpuMs: (cpuMs(worker.child.pid!) - workerCpu) / TASKS, serverCpuMs: (cpuMs(stack.server.child.pid!) - serverCpu) / TASKS };
  await worker.stop();
  return rate;
}

/** The worker's HTTP calls for one task, without running anything: what the server alone allows. */
async function measureProtocolBaseline(stack: Stack, project: { id: string; trigger_secret: string }, repo: string): Promise<Rate> {
  const sha = await commitFiles(repo, { '.pipeline.yml': matrixPipeline(TASKS, 'baseline') }, 'baseline');
  const { token } = await stack.createWorkerToken('bench-baseline');
  const client = new ProtocolClient({ url: stack.url, token });
  const ownCpu = process.cpuUsage();
  const serverCpu = cpuMs(stack.server.child.pid!);
  const started = Date.now();
  const job = await stack.createJob(project, sha);
  let done = 0;
  const loop = async (): Promise<void> => {
    while (done < TASKS) {
      const task = await client.claim({ arches: ['amd64'], features: ['baseline'], name: 'bench-baseline' }, 1);
      if (task === null) continue;
      await client.heartbeat(task.endpoints.heartbeat);
      const source = await client.openSource(task.endpoints.source);
      for await (const _chunk of source) void _chunk;
      await client.appendLog(task.endpoints.log, 0, Buffer.from('$ true\n'));
      await client.complete(task.endpoints.done, { success: true, exit_code: 0, error: null });
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  const minutes = (Date.now() - started) / 60_000;
  const used = process.cpuUsage(ownCpu);
  const rate = { perMinute: TASKS / minutes, workerCpuMs: (used.user + used.system) / 1000 / TASKS, serverCpuMs: (cpuMs(stack.server.child.pid!) - serverCpu) / TASKS };
  client.close();
  await stack.waitForJob(project.id, job);
  return rate;
}

async function measureLogThroughput(stack: Stack, project: { id: string; trigger_secret: string }, repo: string, run: number): Promise<{ mbPerSecond: number; seconds: number; rssMb: number; bytes: number }> {
  const line = 'conveyor benchmark log line: the quick brown fox jumps over the lazy dog 0123456789';
  const sha = await commitFiles(
    repo,
    { '.pipeline.yml': `image: none\ntasks:\n  loud:\n    requires: [log]\n    script:\n      - 'yes "${line}" | head -c ${LOG_BYTES}'\n`, 'run.txt': `${run}\n` },
    `log ${run}`,
  );
  // A fresh worker process per run, so its peak RSS is this run's.
  const worker = await stack.startWorker(`bench-log-${run}`, ['--features', 'log']);
  const job = await stack.createJob(project, sha);
  const read = await stack.waitForJob(project.id, job, 600_000);
  const rssMb = peakRssMb(worker.child.pid!);
  const match = await worker.waitFor(/task loud \(\S+\) success: exit_code=0 duration=[\d.]+s log=(\d+)B/);
  await worker.stop();
  const { task } = await stack.readTask(byName(read).loud!.id);
  const stored = task.log_size;
  // From the claim to the stored outcome, as the server recorded them: every byte is on the server by then.
  const seconds = ((task.finished_at ?? NaN) - (task.started_at ?? NaN)) / 1000;
  const bytes = Number(match[1]);
  if (stored !== bytes) throw new Error(`stored log ${stored} B, worker sent ${bytes} B`);
  return { mbPerSecond: bytes / 1_000_000 / seconds, seconds, rssMb, bytes };
}

async function main(): Promise<void> {
  const stack = await Stack.start({ heartbeatInterval: 10 });
  try {
    const repo = join(stack.dir, 'repo');
    await makeRepo(repo, { 'README.md': 'bench\n' });
    const project = await stack.createProject('bench', repo);
    await stack.setSecret(project.id, 'BENCH_SECRET', 'never-printed-secret-value');
    console.log(`worker benchmark (${QUICK ? 'quick' : 'full'}): ${TASKS} trivial tasks, concurrency ${CONCURRENCY}; a ${LOG_BYTES / 1_000_000} MB log`);
    const describe = (rate: Rate): string =>
      `${rate.perMinute.toFixed(0)} tasks/min; CPU per task: client ${rate.workerCpuMs.toFixed(1)} ms, server ${rate.serverCpuMs.toFixed(1)} ms`;
    const workerRate = await measureWorkerRate(stack, project, repo);
    console.log(`worker, --concurrency ${CONCURRENCY}:       ${describe(workerRate)}`);
    const baseline = await measureProtocolBaseline(stack, project, repo);
    console.log(`protocol-only baseline, 8 loops: ${describe(baseline)}`);
    console.log(`the worker reaches ${((workerRate.perMinute / baseline.perMinute) * 100).toFixed(0)}% of the baseline on ${cpus().length} shared cores`);
    // Three runs, the median reported: the machine is shared, and one run can be unlucky.
    const runs = [];
    for (let run = 1; run <= 3; run++) {
      const log = await measureLogThroughput(stack, project, repo, run);
      console.log(`log of ${(log.bytes / 1_000_000).toFixed(1)} MB, run ${run}: ${log.seconds.toFixed(2)} s from claim to outcome, ${log.mbPerSecond.toFixed(1)} MB/s, worker peak RSS ${log.rssMb.toFixed(0)} MB`);
      runs.push(log);
    }
    const median = [...runs].sort((a, b) => a.mbPerSecond - b.mbPerSecond)[1]!;
    console.log(`log throughput (median of 3): ${median.mbPerSecond.toFixed(1)} MB/s; highest worker peak RSS ${Math.max(...runs.map((r) => r.rssMb)).toFixed(0)} MB`);
  } finally {
    await stack.stop();
  }
}

await main();
