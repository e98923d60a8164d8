// The push step: from `git push` to the task's start through the real post-receive hook (the sh hook
// of `conveyor pipeline hook install`) and a real `conveyor worker` (shell executor), next to the
// same through direct signed /trigger calls; and the time the service takes to accept 50 pushes at once.
import { execFile, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import type { Agent } from 'node:http';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, expectStatus, jsonOf, keepAliveAgent } from './http-client.js';
import { startChild, type ChildServer } from './processes.js';
import { say } from './progress.js';
import type { ReportRow } from './report.js';
import { msSince, percentile, round } from './stats.js';

const run = promisify(execFile);

export const PUSH_TARGETS = { hookP50Ms: 60, burstMs: 250 };

/** Tasks of the measured pushes need a feature only the step's worker offers; burst tasks one nobody offers. */
const PUSH_FEATURE = 'bench-push';
const BURST_FEATURE = 'bench-burst-nobody';
const PROJECT = 'bench-push';
const ACTOR = 'bench';

export interface PushSettings {
  pushes: number;
  warmup: number;
  burst: number;
  burstRounds: number;
}

export interface PushContext {
  conveyorBin: string;
  /** The server's environment (PIPELINE_DATABASE_PATH and so on), for the admin CLI. */
  serverEnv: NodeJS.ProcessEnv;
  /** The environment without PIPELINE_* settings, for the worker and git. */
  env: NodeJS.ProcessEnv;
  baseUrl: string;
  scratch: string;
  settings: PushSettings;
}

interface Latencies {
  p50Ms: number;
  p95Ms: number;
  samplesMs: number[];
}

export interface PushFigures {
  pushes: number;
  /** `git push` start to the task's started_at, through the sh post-receive hook. */
  hook: Latencies & { pushCommandP50Ms: number };
  /** The same through the node hook (`conveyor pipeline hook post-receive`), for comparison. */
  nodeHook: Latencies & { pushCommandP50Ms: number };
  /** A signed POST /trigger to the task's started_at. */
  direct: Latencies;
  /** 50 concurrent signed /trigger calls for distinct commits until all answered 200, per round. */
  burst: { calls: number; roundsMs: number[]; medianMs: number };
}

const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'Conveyor Bench',
  GIT_AUTHOR_EMAIL: 'bench@conveyor.invalid',
  GIT_COMMITTER_NAME: 'Conveyor Bench',
  GIT_COMMITTER_EMAIL: 'bench@conveyor.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

function latencies(samplesMs: number[]): Latencies {
  return { p50Ms: round(percentile(samplesMs, 0.5), 1), p95Ms: round(percentile(samplesMs, 0.95), 1), samplesMs: samplesMs.map((value) => round(value, 1)) };
}

const pipelineRequiring = (feature: string): string => `image: none\ntasks:\n  t:\n    requires: [${feature}]\n    script: ["true"]\n`;

/** A bare repository (the one pushed to, and the project's) and a clone to commit in. */
class PushRepository {
  private serial = 0;
  constructor(
    readonly bare: string,
    readonly work: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  static async create(scratch: string, env: NodeJS.ProcessEnv): Promise<PushRepository> {
    const bare = join(scratch, 'push.git');
    const work = join(scratch, 'push-work');
    const repository = new PushRepository(bare, work, { ...env, ...GIT_IDENTITY });
    await repository.git(scratch, ['init', '-q', '--bare', bare]);
    await repository.git(scratch, ['init', '-q', '-b', 'main', work]);
    return repository;
  }

  async git(cwd: string, args: string[]): Promise<string> {
    return (await run('git', ['-C', cwd, ...args], { env: this.env })).stdout.trim();
  }

  /** A new commit whose pipeline's task requires `feature`; returns its id. */
  async commit(feature: string): Promise<string> {
    this.serial += 1;
    await writeFile(join(this.work, '.pipeline.yml'), pipelineRequiring(feature));
    await writeFile(join(this.work, 'serial.txt'), `${this.serial}\n`);
    await this.git(this.work, ['add', '.']);
    await this.git(this.work, ['commit', '-q', '-m', `push ${this.serial}`]);
    return this.git(this.work, ['rev-parse', 'HEAD']);
  }

  /** Runs `git push` and resolves with its stderr (where the hook's output arrives). */
  push(): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['-C', this.work, 'push', '-q', this.bare, 'main'], { env: { ...this.env, CONVEYOR_ACTOR: ACTOR }, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(stderr) : reject(new Error(`git push exited ${code}: ${stderr}`))));
    });
  }

  /** Commits made and pushed with the hook set aside: they are in the repository, and no job exists for them. */
  async pushWithoutHook(count: number, feature: string): Promise<string[]> {
    const hook = join(this.bare, 'hooks', 'post-receive');
    await rename(hook, `${hook}.off`);
    try {
      const shas: string[] = [];
      for (let index = 0; index < count; index += 1) shas.push(await this.commit(feature));
      await this.push();
      return shas;
    } finally {
      await rename(`${hook}.off`, hook);
    }
  }
}

class TriggerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly secret: string,
  ) {}

  /** A signed trigger in the normalised shape, as the hook sends it; resolves with the job id. */
  async trigger(agent: Agent, sha: string): Promise<string> {
    const body = JSON.stringify({ sha, base: '', ref: 'refs/heads/main', actor: ACTOR });
    const signature = createHmac('sha256', this.secret).update(body).digest('hex');
    const response = await call({
      method: 'POST',
      url: `${this.baseUrl}/api/v1/projects/${PROJECT}/trigger`,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${signature}` },
      body,
      agent,
    });
    expectStatus(response, 200, 'trigger');
    const answer = jsonOf(response, 'trigger') as { job_id?: unknown };
    if (typeof answer.job_id !== 'string') throw new Error(`trigger: no job id in ${response.body.toString('utf8')}`);
    return answer.job_id;
  }

  /**
   * The epoch ms at which the job's one task was claimed (its started_at), once the task has finished:
   * the next measured push then finds the worker free. Polled every 10 ms (the project is public).
   */
  async taskStart(agent: Agent, jobId: string): Promise<number> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const job = await call({ method: 'GET', url: `${this.baseUrl}/api/v1/projects/${PROJECT}/jobs/${jobId}`, agent });
      expectStatus(job, 200, 'job read');
      const task = (jsonOf(job, 'job read') as { tasks: Array<{ id: string; state: string }> }).tasks[0];
      if (task === undefined) throw new Error(`job ${jobId} has no task`);
      if (task.state === 'success') {
        const read = await call({ method: 'GET', url: `${this.baseUrl}/api/v1/tasks/${task.id}`, agent });
        expectStatus(read, 200, 'task read');
        const startedAt = (jsonOf(read, 'task read') as { task: { started_at: unknown } }).task.started_at;
        if (typeof startedAt !== 'number') throw new Error(`task ${task.id} has no started_at`);
        return startedAt;
      }
      if (!['blocked', 'waiting', 'running'].includes(task.state)) throw new Error(`task ${task.id} ended ${task.state}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`job ${jobId}: the task did not finish within 60 s; is the worker running?`);
  }
}

async function admin(context: PushContext, args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [context.conveyorBin, 'pipeline', 'admin', ...args, '--json'], { env: context.serverEnv });
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function startWorker(context: PushContext): Promise<ChildServer> {
  const token = (await admin(context, ['worker', 'create', '--name', 'push-worker'])).token;
  if (typeof token !== 'string') throw new Error('worker create printed no token');
  const tokenFile = join(context.scratch, 'push-worker.token');
  await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
  const workDir = join(context.scratch, 'push-worker');
  await mkdir(workDir, { recursive: true });
  const args = [context.conveyorBin, 'worker', '--url', context.baseUrl, '--token-file', tokenFile, '--name', 'push-worker', '--executor', 'shell'];
  args.push('--features', PUSH_FEATURE, '--work-dir', workDir, '--poll-wait', '30');
  return startChild(args, context.env, 'started');
}

/** One measured push through the hook: ms from `git push` to the task's start, and the push command's own time. */
async function timeHookPush(repository: PushRepository, client: TriggerClient, agent: Agent): Promise<{ toStartMs: number; pushMs: number }> {
  await repository.commit(PUSH_FEATURE);
  const startedAt = Date.now();
  const clock = process.hrtime.bigint();
  const stderr = await repository.push();
  const pushMs = msSince(clock);
  const jobId = /triggered refs\/heads\/main [0-9a-f]{7}: job (\S+)/.exec(stderr)?.[1];
  if (jobId === undefined) throw new Error(`the hook reported no job: ${stderr}`);
  return { toStartMs: (await client.taskStart(agent, jobId)) - startedAt, pushMs };
}

async function timeDirectTrigger(sha: string, client: TriggerClient, agent: Agent): Promise<number> {
  const startedAt = Date.now();
  const jobId = await client.trigger(agent, sha);
  return (await client.taskStart(agent, jobId)) - startedAt;
}

/** All calls at once on their own connections; ms until the last one has answered 200. */
async function timeBurst(shas: string[], client: TriggerClient): Promise<number> {
  const agent = keepAliveAgent(shas.length);
  try {
    const clock = process.hrtime.bigint();
    await Promise.all(shas.map((sha) => client.trigger(agent, sha)));
    return msSince(clock);
  } finally {
    agent.destroy();
  }
}

export async function measurePushPath(context: PushContext): Promise<PushFigures> {
  const { settings } = context;
  say('push: bare repository, public project, sh post-receive hook, shell worker');
  const repository = await PushRepository.create(context.scratch, context.env);
  const project = await admin(context, ['project', 'create', '--name', PROJECT, '--repo', repository.bare, '--visibility', 'public']);
  if (typeof project.trigger_secret !== 'string') throw new Error('project create printed no trigger secret');
  const secretFile = join(context.scratch, 'push.secret');
  await writeFile(secretFile, `${project.trigger_secret}\n`, { mode: 0o600 });
  await run(process.execPath, [context.conveyorBin, 'pipeline', 'hook', 'install', '--repo', repository.bare, '--url', context.baseUrl, '--project', PROJECT, '--secret-file', secretFile], {
    env: context.env,
  });
  const client = new TriggerClient(context.baseUrl, project.trigger_secret);
  const worker = await startWorker(context);
  const agent = keepAliveAgent(1);
  try {
    const timeHook = async (name: string): Promise<PushFigures['hook']> => {
      say(`push: ${settings.warmup} warm-up + ${settings.pushes} timed sequential pushes through the ${name}`);
      const runs: Array<{ toStartMs: number; pushMs: number }> = [];
      for (let index = 0; index < settings.warmup + settings.pushes; index += 1) {
        const timed = await timeHookPush(repository, client, agent);
        if (index >= settings.warmup) runs.push(timed);
      }
      const figures = { ...latencies(runs.map((entry) => entry.toStartMs)), pushCommandP50Ms: round(percentile(runs.map((entry) => entry.pushMs), 0.5), 1) };
      say(`push: ${name}: p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms (git push itself p50 ${figures.pushCommandP50Ms} ms)`);
      return figures;
    };
    const hook = await timeHook('sh hook');
    const hookFile = join(repository.bare, 'hooks', 'post-receive');
    const shHook = await readFile(hookFile);
    const nodeArgs = [process.execPath, context.conveyorBin, 'pipeline', 'hook', 'post-receive', '--url', context.baseUrl, '--project', PROJECT, '--secret-file', secretFile];
    await writeFile(hookFile, `#!/bin/sh\nexec ${nodeArgs.map((arg) => `'${arg}'`).join(' ')}\n`);
    const nodeHook = await timeHook('node hook');
    await writeFile(hookFile, shHook);

    say(`push: ${settings.warmup} warm-up + ${settings.pushes} timed sequential direct /trigger calls`);
    const shas = await repository.pushWithoutHook(settings.warmup + settings.pushes, PUSH_FEATURE);
    const directRuns: number[] = [];
    for (const [index, sha] of shas.entries()) {
      const ms = await timeDirectTrigger(sha, client, agent);
      if (index >= settings.warmup) directRuns.push(ms);
    }
    const direct = latencies(directRuns);
    say(`push: direct p50 ${direct.p50Ms} ms, p95 ${direct.p95Ms} ms`);

    say(`push: ${settings.burstRounds} rounds of ${settings.burst} concurrent /trigger calls, distinct commits`);
    const roundsMs: number[] = [];
    for (let pass = 1; pass <= settings.burstRounds; pass += 1) {
      const burstShas = await repository.pushWithoutHook(settings.burst, BURST_FEATURE);
      roundsMs.push(await timeBurst(burstShas, client));
      say(`push: burst round ${pass}: ${settings.burst} accepted in ${(roundsMs.at(-1) ?? 0).toFixed(0)} ms`);
    }
    return { pushes: settings.pushes, hook, nodeHook, direct, burst: { calls: settings.burst, roundsMs: roundsMs.map((ms) => round(ms, 1)), medianMs: round(percentile(roundsMs, 0.5), 1) } };
  } finally {
    agent.destroy();
    await worker.stop();
  }
}

export function pushRows(figures: PushFigures): ReportRow[] {
  return [
    {
      metric: `Push to task start through the sh post-receive hook, p50 (${figures.pushes} pushes)`,
      value: `${figures.hook.p50Ms.toFixed(1)} ms`,
      target: `< ${PUSH_TARGETS.hookP50Ms} ms`,
      met: figures.hook.p50Ms < PUSH_TARGETS.hookP50Ms,
    },
    { metric: 'Push to task start through the hook, p95', value: `${figures.hook.p95Ms.toFixed(1)} ms`, target: '-', met: null },
    { metric: 'The git push command itself (hook included), p50', value: `${figures.hook.pushCommandP50Ms.toFixed(1)} ms`, target: '-', met: null },
    { metric: 'Push to task start through the node hook (hook post-receive), p50', value: `${figures.nodeHook.p50Ms.toFixed(1)} ms`, target: '-', met: null },
    { metric: 'Push to task start through the node hook, p95', value: `${figures.nodeHook.p95Ms.toFixed(1)} ms`, target: '-', met: null },
    { metric: `Signed /trigger to task start, p50 (${figures.pushes} calls)`, value: `${figures.direct.p50Ms.toFixed(1)} ms`, target: '-', met: null },
    { metric: 'Signed /trigger to task start, p95', value: `${figures.direct.p95Ms.toFixed(1)} ms`, target: '-', met: null },
    {
      metric: `${figures.burst.calls} pushes at once (concurrent /trigger, distinct commits), median of ${figures.burst.roundsMs.length}`,
      value: `${figures.burst.medianMs.toFixed(0)} ms`,
      target: `< ${PUSH_TARGETS.burstMs} ms`,
      met: figures.burst.medianMs < PUSH_TARGETS.burstMs,
    },
  ];
}
