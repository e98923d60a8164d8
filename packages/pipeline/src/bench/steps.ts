import type { Agent } from 'node:http';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClaimedTaskRef, PipelineApi } from './api.js';
import { claimUntilIdle, completeAll, type CompletionFigures } from './claims.js';
import type { BenchRepository } from './fixtures.js';
import { withHeldTask } from './held-task.js';
import { keepAliveAgent } from './http-client.js';
import { timeJobCreations } from './jobs.js';
import { ingestLog } from './logs.js';
import { cpuSeconds, peakRss, startChild } from './processes.js';
import { say } from './progress.js';
import type { Observed, Results } from './results.js';
import { MIB, round } from './stats.js';
import { sendToBaseline, timeUpload, type UploadFigures } from './uploads.js';

export interface Settings {
  concurrency: number;
  tasksPerJob: number;
  claimJobs: number;
  jobCreations: number;
  jobCreationWarmup: number;
  logBytes: number;
  artifactBytes: number;
  /** Log appends whose event latency the sse step measures, and the size of each. */
  sseAppends: number;
  sseChunkBytes: number;
}

/** What every step works with. */
export interface Bench {
  settings: Settings;
  api: PipelineApi;
  /** Keep-alive connections shared by the steps (as many as there are concurrent claimers). */
  agent: Agent;
  pool: readonly Buffer[];
  repo: BenchRepository;
  /** The pipeline server's process id, for its CPU time and peak RSS. */
  serverPid: number;
  /** The server's PIPELINE_DATA_PATH. */
  dataPath: string;
  /** A scratch directory inside the benchmark's temp dir. */
  scratch: string;
  /** The compiled baseline server script. */
  baselineScript: string;
  /** Extra node flags, given to the pipeline server and the baseline alike (BENCH_SERVER_NODE_ARGS). */
  nodeArgs: string[];
  env: NodeJS.ProcessEnv;
}

/** Runs `body` and adds the server's CPU use over it, its peak RSS afterwards and this process's CPU use. */
export async function observed<T extends { elapsedMs: number }>(pid: number, body: () => Promise<T>): Promise<Observed<T>> {
  const before = cpuSeconds(pid);
  const clientBefore = process.cpuUsage();
  const figures = await body();
  const after = cpuSeconds(pid);
  const client = process.cpuUsage(clientBefore);
  const used = before === null || after === null ? null : after - before;
  return {
    ...figures,
    server: {
      cpuSeconds: used === null ? null : round(used, 2),
      cpuShare: used === null ? null : round(used / (figures.elapsedMs / 1000), 2),
      peakRssBytes: peakRss(pid),
      clientCpuSeconds: round((client.user + client.system) / 1e6, 2),
    },
  };
}

/**
 * Claims per second: a warm-up job is claimed and completed, then `claimJobs` jobs of `tasksPerJob`
 * tasks are created and `concurrency` loops claim until 204. Completing them afterwards is not timed
 * into the figure (it is reported on its own).
 */
export async function measureClaims(bench: Bench): Promise<{ claims: Results['claims']; completions: CompletionFigures }> {
  const { api, agent, settings, repo } = bench;
  say(`claims: warm-up, 1 job of ${settings.tasksPerJob} tasks claimed and completed (not measured)`);
  await api.createJob(agent, repo.wideSha);
  const warm = await claimUntilIdle(api, agent, settings.concurrency, 'warm-up');
  await completeAll(api, agent, warm.tasks, settings.concurrency);

  const total = settings.claimJobs * settings.tasksPerJob;
  say(`claims: creating ${settings.claimJobs} jobs x ${settings.tasksPerJob} tasks = ${total} waiting tasks`);
  for (let index = 0; index < settings.claimJobs; index += 1) {
    const job = await api.createJob(agent, repo.wideSha);
    if (job.tasks !== settings.tasksPerJob) throw new Error(`a job of the wide pipeline has ${job.tasks} tasks, expected ${settings.tasksPerJob}`);
  }

  say(`claims: ${settings.concurrency} concurrent loops claim until 204`);
  let claimed: ClaimedTaskRef[] = [];
  const claims = await observed(bench.serverPid, async () => {
    const run = await claimUntilIdle(api, agent, settings.concurrency, 'claims');
    claimed = run.tasks;
    return run.figures;
  });
  if (claims.claims !== total) throw new Error(`claimed ${claims.claims} tasks, but ${total} were waiting`);
  say(`claims: ${claims.claims} distinct tasks in ${(claims.elapsedMs / 1000).toFixed(2)} s = ${claims.claimsPerSecond.toFixed(0)}/s`);

  say(`claims: completing the ${claimed.length} claimed tasks (not part of the figure)`);
  const completions = await completeAll(api, agent, claimed, settings.concurrency);
  say(`claims: ${completions.completed} completed at ${completions.completionsPerSecond.toFixed(0)}/s`);
  return { claims, completions };
}

/** Job creation time: sequential jobs at the commit whose pipeline has a 64-variant matrix. */
export async function measureJobCreation(bench: Bench): Promise<Results['jobCreation']> {
  const { api, agent, settings, repo } = bench;
  say(`job creation: ${settings.jobCreationWarmup} warm-up + ${settings.jobCreations} timed sequential jobs with a 64-variant matrix`);
  const figures = await observed(bench.serverPid, async () => {
    const start = Date.now();
    const timed = await timeJobCreations(api, agent, repo.matrix64Sha, settings.jobCreations, settings.jobCreationWarmup);
    return { ...timed, elapsedMs: Date.now() - start };
  });
  if (figures.tasksPerJob !== 64) throw new Error(`a 64-variant job has ${figures.tasksPerJob} tasks`);
  say(`job creation: p50 ${figures.p50Ms.toFixed(1)} ms, p95 ${figures.p95Ms.toFixed(1)} ms`);
  return figures;
}

/** Log ingest: sequential 64 KiB appends to one held task. */
export async function measureLogIngest(bench: Bench): Promise<Results['logIngest']> {
  const { api, agent, settings } = bench;
  say(`log ingest: ${(settings.logBytes / MIB).toFixed(0)} MiB in 64 KiB chunks, sequential appends to one held task`);
  const figures = await withHeldTask(api, agent, (task) => observed(bench.serverPid, () => ingestLog(api, agent, task, bench.pool, settings.logBytes)));
  say(`log ingest: ${figures.mbPerSecond.toFixed(1)} MB/s`);
  return figures;
}

async function removeFilesIn(directory: string): Promise<void> {
  const names = await readdir(directory).catch(() => [] as string[]);
  await Promise.all(names.map((name) => rm(join(directory, name), { force: true, recursive: true })));
}

/** Rounds of the artifact comparison; the two uploads alternate, so passing load and disk writeback hit both. */
const ARTIFACT_ROUNDS = 5;

function medianBySpeed<T extends { mbPerSecond: number }>(runs: T[]): T {
  const sorted = [...runs].sort((a, b) => a.mbPerSecond - b.mbPerSecond);
  return sorted[Math.floor(sorted.length / 2)] as T;
}

/**
 * Large artifact uploads to a held task against the same bytes to a plain node:http server that only
 * streams them to a file (a child process, like the service), in rounds that alternate which goes first.
 * Each stored file is deleted at once.
 */
export async function measureArtifactUpload(bench: Bench): Promise<Results['artifact']> {
  const { api, agent, settings, pool } = bench;
  const length = settings.artifactBytes;
  say('artifact: starting the plain node:http baseline server');
  const directory = join(bench.scratch, 'baseline');
  await mkdir(directory, { recursive: true });
  const baseline = await startChild([...bench.nodeArgs, bench.baselineScript, directory], bench.env, 'Listening on');
  const pipelineRuns: Observed<UploadFigures>[] = [];
  const baselineRuns: Observed<UploadFigures>[] = [];
  try {
    const url = /Listening on (http:\/\/\S+)/.exec(baseline.output())?.[1];
    if (url === undefined) throw new Error(`the baseline server printed no URL: ${baseline.output()}`);
    const uploadToService = async (round: number): Promise<void> => {
      say(`artifact: round ${round} of ${ARTIFACT_ROUNDS}, ${(length / MIB).toFixed(0)} MiB to the pipeline service`);
      const uploadAgent = keepAliveAgent(1);
      const run = await withHeldTask(api, agent, (task) =>
        observed(bench.serverPid, () =>
          timeUpload('pipeline upload', pool, length, (body) => api.uploadArtifact(uploadAgent, task, 'big.bin', length, body)),
        ),
      );
      uploadAgent.destroy();
      pipelineRuns.push(run);
      await removeFilesIn(join(bench.dataPath, 'artifacts'));
      await removeFilesIn(join(bench.dataPath, 'tmp'));
    };
    const uploadToBaseline = async (round: number): Promise<void> => {
      say(`artifact: round ${round} of ${ARTIFACT_ROUNDS}, the same bytes to the baseline`);
      const baselineAgent = keepAliveAgent(1);
      baselineRuns.push(await observed(baseline.pid, () => timeUpload('baseline upload', pool, length, (body) => sendToBaseline(url, baselineAgent, length, body))));
      baselineAgent.destroy();
      await removeFilesIn(directory);
    };
    for (let round = 1; round <= ARTIFACT_ROUNDS; round += 1) {
      const order = round % 2 === 1 ? [uploadToService, uploadToBaseline] : [uploadToBaseline, uploadToService];
      for (const upload of order) await upload(round);
      say(`artifact: round ${round}: service ${(pipelineRuns.at(-1)?.mbPerSecond ?? 0).toFixed(0)} MB/s, baseline ${(baselineRuns.at(-1)?.mbPerSecond ?? 0).toFixed(0)} MB/s`);
    }
    const pipeline = medianBySpeed(pipelineRuns);
    const plain = medianBySpeed(baselineRuns);
    const ratio = pipeline.mbPerSecond / plain.mbPerSecond;
    say(`artifact: medians ${pipeline.mbPerSecond.toFixed(0)} / ${plain.mbPerSecond.toFixed(0)} MB/s, ratio ${ratio.toFixed(2)}`);
    return { pipeline, baseline: plain, ratio, baselinePeakRssBytes: peakRss(baseline.pid) };
  } finally {
    await baseline.stop();
    await rm(directory, { recursive: true, force: true });
  }
}
