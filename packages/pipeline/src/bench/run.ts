// `npm run bench:pipeline`: measures the pipeline service as a real server process (the CLI's
// `conveyor pipeline serve`) over HTTP, prints a table and writes .bench/pipeline.json.
//
// Environment knobs (none needed for the documented run):
//   BENCH_QUICK=1               a scaled-down run for checking the benchmark itself (figures not comparable)
//   BENCH_SERVER_NODE_ARGS=...  extra node flags for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"
//   BENCH_ONLY=claims,jobs,logs,artifact   run only some steps
import { cpus, tmpdir } from 'node:os';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PipelineApi } from './api.js';
import { randomPool } from './body.js';
import { claimUntilIdle, completeAll, type ClaimFigures, type CompletionFigures } from './claims.js';
import { adminCli, createBenchRepository, findRepositoryRoot } from './fixtures.js';
import { withHeldTask } from './held-task.js';
import { keepAliveAgent } from './http-client.js';
import { timeJobCreations, type JobCreationFigures } from './jobs.js';
import { ingestLog, type LogIngestFigures } from './logs.js';
import { cpuSeconds, freePort, peakRss, startChild, type ChildServer } from './processes.js';
import { say } from './progress.js';
import { formatTable, writeJson, type ReportRow } from './report.js';
import { MIB, round } from './stats.js';
import { sendToBaseline, timeUpload, type UploadFigures } from './uploads.js';

const QUICK = process.env.BENCH_QUICK === '1';

const SETTINGS = {
  concurrency: 32,
  tasksPerJob: 250,
  claimJobs: QUICK ? 2 : 20,
  jobCreations: QUICK ? 10 : 50,
  jobCreationWarmup: 3,
  logBytes: (QUICK ? 8 : 48) * MIB,
  artifactBytes: (QUICK ? 64 : 1024) * MIB,
};

const TARGETS = {
  claimsPerSecond: 1000,
  jobCreationP50Ms: 50,
  artifactRatio: 0.8,
  peakRssBytes: 200e6,
};

type Step = 'claims' | 'jobs' | 'logs' | 'artifact';
const STEPS: Step[] = ['claims', 'jobs', 'logs', 'artifact'];
const only = process.env.BENCH_ONLY?.split(',').map((step) => step.trim());
const enabled = (step: Step): boolean => only === undefined || only.includes(step);

/** What the server process did during a step: CPU seconds used and its peak RSS so far. */
interface ServerUsage {
  cpuSeconds: number | null;
  cpuShare: number | null;
  peakRssBytes: number | null;
}

interface Results {
  claims?: ClaimFigures & { server: ServerUsage };
  completions?: CompletionFigures;
  jobCreation?: JobCreationFigures & { server: ServerUsage };
  logIngest?: LogIngestFigures & { server: ServerUsage };
  artifact?: {
    pipeline: UploadFigures & { server: ServerUsage };
    baseline: UploadFigures & { server: ServerUsage };
    ratio: number;
    baselinePeakRssBytes: number | null;
  };
  serverPeakRssBytes?: number | null;
}

/** Runs `body` and reports the server's CPU use over it and its peak RSS afterwards. */
async function observed<T extends { elapsedMs: number }>(pid: number, body: () => Promise<T>): Promise<T & { server: ServerUsage }> {
  const before = cpuSeconds(pid);
  const figures = await body();
  const after = cpuSeconds(pid);
  const used = before === null || after === null ? null : after - before;
  return {
    ...figures,
    server: {
      cpuSeconds: used === null ? null : round(used, 2),
      cpuShare: used === null ? null : round(used / (figures.elapsedMs / 1000), 2),
      peakRssBytes: peakRss(pid),
    },
  };
}

/** Inherited PIPELINE_* settings would change what is measured; the benchmark sets its own. */
function cleanEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PIPELINE_')));
}

async function removeFilesIn(directory: string): Promise<void> {
  const names = await readdir(directory).catch(() => [] as string[]);
  await Promise.all(names.map((name) => rm(join(directory, name), { force: true, recursive: true })));
}

const mb = (bytes: number | null | undefined): string => (bytes == null ? 'n/a' : `${(bytes / 1e6).toFixed(1)} MB`);

function rowsOf(results: Results): ReportRow[] {
  const rows: ReportRow[] = [];
  const { claims, completions, jobCreation, logIngest, artifact } = results;
  if (claims !== undefined) {
    rows.push({
      metric: `Claims/s, ${claims.concurrency} concurrent claimers (${claims.claims} tasks)`,
      value: `${claims.claimsPerSecond.toFixed(0)}/s`,
      target: `>= ${TARGETS.claimsPerSecond.toLocaleString('en-US')}/s`,
      met: claims.claimsPerSecond >= TARGETS.claimsPerSecond,
    });
    rows.push({ metric: 'Task ids handed out twice', value: String(claims.claims - claims.distinctTasks), target: '0', met: claims.claims === claims.distinctTasks });
  }
  if (completions !== undefined) {
    rows.push({ metric: 'Completions/s, 32 concurrent (not a target)', value: `${completions.completionsPerSecond.toFixed(0)}/s`, target: '-', met: null });
  }
  if (jobCreation !== undefined) {
    rows.push({
      metric: `Job creation, ${jobCreation.tasksPerJob}-variant matrix, p50 (${jobCreation.jobs} jobs)`,
      value: `${jobCreation.p50Ms.toFixed(1)} ms`,
      target: `< ${TARGETS.jobCreationP50Ms} ms`,
      met: jobCreation.p50Ms < TARGETS.jobCreationP50Ms,
    });
    rows.push({ metric: `Job creation, ${jobCreation.tasksPerJob}-variant matrix, p95`, value: `${jobCreation.p95Ms.toFixed(1)} ms`, target: '-', met: null });
  }
  if (logIngest !== undefined) {
    rows.push({
      metric: `Log ingest, ${logIngest.chunkBytes / 1024} KiB chunks (${(logIngest.bytes / MIB).toFixed(0)} MiB, sequential)`,
      value: `${logIngest.mbPerSecond.toFixed(1)} MB/s`,
      target: '-',
      met: null,
    });
  }
  if (artifact !== undefined) {
    const size = `${(artifact.pipeline.bytes / MIB / 1024).toFixed(artifact.pipeline.bytes >= 1024 * MIB ? 0 : 2)} GiB`;
    rows.push({ metric: `Artifact upload ${size}, pipeline service`, value: `${artifact.pipeline.mbPerSecond.toFixed(0)} MB/s`, target: '-', met: null });
    rows.push({ metric: `Artifact upload ${size}, plain node:http baseline`, value: `${artifact.baseline.mbPerSecond.toFixed(0)} MB/s`, target: '-', met: null });
    rows.push({
      metric: 'Artifact throughput ratio, service / baseline',
      value: artifact.ratio.toFixed(2),
      target: `>= ${TARGETS.artifactRatio}`,
      met: artifact.ratio >= TARGETS.artifactRatio,
    });
    rows.push({ metric: 'Baseline server peak RSS (VmHWM)', value: mb(artifact.baselinePeakRssBytes), target: '-', met: null });
  }
  if (results.serverPeakRssBytes !== undefined) {
    const peak = results.serverPeakRssBytes;
    rows.push({
      metric: 'Pipeline server peak RSS over the whole run (VmHWM)',
      value: mb(peak),
      target: `< ${TARGETS.peakRssBytes / 1e6} MB`,
      met: peak === null ? null : peak < TARGETS.peakRssBytes,
    });
  }
  return rows;
}

async function main(): Promise<number> {
  const root = findRepositoryRoot();
  const conveyorBin = join(root, 'packages', 'cli', 'bin', 'conveyor.js');
  const serverNodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter((arg) => arg !== '');
  const temp = await mkdtemp(join(tmpdir(), 'conveyor-bench-'));
  const results: Results = {};
  let server: ChildServer | null = null;
  let baseline: ChildServer | null = null;
  const started = Date.now();
  say(`pipeline benchmark${QUICK ? ' (QUICK: scaled down, figures not comparable)' : ''}: node ${process.version}, ${cpus().length} cores, temp ${temp}`);
  try {
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
    };
    say(`starting: conveyor pipeline serve on 127.0.0.1:${port}${serverNodeArgs.length > 0 ? ` (node ${serverNodeArgs.join(' ')})` : ''}`);
    server = await startChild([...serverNodeArgs, conveyorBin, 'pipeline', 'serve'], env, 'Listening on');
    const pid = server.pid;
    say('preparing: project and worker through the admin CLI');
    const admin = adminCli(conveyorBin, env);
    const project = await admin.createProject('bench', repo.path);
    const worker = await admin.createWorker('w1');
    const api = new PipelineApi(`http://127.0.0.1:${port}`, { name: 'bench', triggerSecret: project.triggerSecret }, worker.token);
    const agent = keepAliveAgent(SETTINGS.concurrency);
    const pool = randomPool();

    if (enabled('claims')) {
      say(`claims: warm-up, 1 job of ${SETTINGS.tasksPerJob} tasks claimed and completed (not measured)`);
      await api.createJob(agent, repo.wideSha);
      const warm = await claimUntilIdle(api, agent, SETTINGS.concurrency, 'warm-up');
      await completeAll(api, agent, warm.tasks, SETTINGS.concurrency);
      const total = SETTINGS.claimJobs * SETTINGS.tasksPerJob;
      say(`claims: creating ${SETTINGS.claimJobs} jobs x ${SETTINGS.tasksPerJob} tasks = ${total} waiting tasks`);
      for (let index = 0; index < SETTINGS.claimJobs; index += 1) {
        const job = await api.createJob(agent, repo.wideSha);
        if (job.tasks !== SETTINGS.tasksPerJob) throw new Error(`a job of the wide pipeline has ${job.tasks} tasks, expected ${SETTINGS.tasksPerJob}`);
      }
      say(`claims: ${SETTINGS.concurrency} concurrent loops claim until 204`);
      let claimed: Awaited<ReturnType<typeof claimUntilIdle>>['tasks'] = [];
      results.claims = await observed(pid, async () => {
        const run = await claimUntilIdle(api, agent, SETTINGS.concurrency, 'claims');
        claimed = run.tasks;
        return run.figures;
      });
      if (results.claims.claims !== total) throw new Error(`claimed ${results.claims.claims} tasks, but ${total} were waiting`);
      say(`claims: ${results.claims.claims} distinct tasks in ${(results.claims.elapsedMs / 1000).toFixed(2)} s = ${results.claims.claimsPerSecond.toFixed(0)}/s`);
      say(`claims: completing the ${claimed.length} claimed tasks (not part of the figure)`);
      results.completions = await completeAll(api, agent, claimed, SETTINGS.concurrency);
      say(`claims: ${results.completions.completed} completed at ${results.completions.completionsPerSecond.toFixed(0)}/s`);
    }

    if (enabled('jobs')) {
      say(`job creation: ${SETTINGS.jobCreationWarmup} warm-up + ${SETTINGS.jobCreations} timed sequential jobs with a 64-variant matrix`);
      results.jobCreation = await observed(pid, async () => {
        const start = Date.now();
        const figures = await timeJobCreations(api, agent, repo.matrix64Sha, SETTINGS.jobCreations, SETTINGS.jobCreationWarmup);
        return { ...figures, elapsedMs: Date.now() - start };
      });
      if (results.jobCreation.tasksPerJob !== 64) throw new Error(`a 64-variant job has ${results.jobCreation.tasksPerJob} tasks`);
      say(`job creation: p50 ${results.jobCreation.p50Ms.toFixed(1)} ms, p95 ${results.jobCreation.p95Ms.toFixed(1)} ms`);
    }

    // Log and artifact steps claim tasks of their own; make sure there is something to claim.
    if (enabled('logs') || enabled('artifact')) await api.createJob(agent, repo.matrix64Sha);

    if (enabled('logs')) {
      say(`log ingest: ${(SETTINGS.logBytes / MIB).toFixed(0)} MiB in 64 KiB chunks, sequential appends to one held task`);
      results.logIngest = await withHeldTask(api, agent, (task) => observed(pid, () => ingestLog(api, agent, task, pool, SETTINGS.logBytes)));
      say(`log ingest: ${results.logIngest.mbPerSecond.toFixed(1)} MB/s`);
    }

    if (enabled('artifact')) {
      const length = SETTINGS.artifactBytes;
      const uploadAgent = keepAliveAgent(1);
      say(`artifact: ${(length / MIB).toFixed(0)} MiB upload to the pipeline service`);
      const pipelineUpload = await withHeldTask(api, agent, (task) =>
        observed(pid, () => timeUpload('pipeline upload', pool, length, (body) => api.uploadArtifact(uploadAgent, task, 'big.bin', length, body))),
      );
      say(`artifact: pipeline service ${pipelineUpload.mbPerSecond.toFixed(0)} MB/s; deleting the stored file`);
      await removeFilesIn(join(dataPath, 'artifacts'));
      await removeFilesIn(join(dataPath, 'tmp'));
      uploadAgent.destroy();

      say('artifact: starting the plain node:http baseline server');
      const baselineDir = join(temp, 'baseline');
      await mkdir(baselineDir);
      baseline = await startChild([join(root, 'packages', 'pipeline', 'dist', 'bench', 'baseline-server.js'), baselineDir], cleanEnvironment(), 'Listening on');
      const baselineUrl = /Listening on (http:\/\/\S+)/.exec(baseline.output())?.[1];
      if (baselineUrl === undefined) throw new Error(`baseline server printed no URL: ${baseline.output()}`);
      const baselineAgent = keepAliveAgent(1);
      say(`artifact: ${(length / MIB).toFixed(0)} MiB upload to the baseline`);
      const baselinePid = baseline.pid;
      const baselineUpload = await observed(baselinePid, () =>
        timeUpload('baseline upload', pool, length, (body) => sendToBaseline(baselineUrl, baselineAgent, length, body)),
      );
      baselineAgent.destroy();
      const baselinePeak = peakRss(baselinePid);
      await baseline.stop();
      baseline = null;
      await rm(baselineDir, { recursive: true, force: true });
      results.artifact = {
        pipeline: pipelineUpload,
        baseline: baselineUpload,
        ratio: pipelineUpload.mbPerSecond / baselineUpload.mbPerSecond,
        baselinePeakRssBytes: baselinePeak,
      };
      say(`artifact: baseline ${baselineUpload.mbPerSecond.toFixed(0)} MB/s, ratio ${results.artifact.ratio.toFixed(2)}`);
    }

    results.serverPeakRssBytes = peakRss(pid);
    agent.destroy();
  } finally {
    say('cleaning up: stopping servers, removing the temp dir');
    await baseline?.stop();
    await server?.stop();
    await rm(temp, { recursive: true, force: true });
  }

  const rows = rowsOf(results);
  console.log('');
  console.log(`Pipeline service benchmark: node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'})`);
  console.log('MB = 10^6 bytes. Server and load generator share the machine.');
  console.log('');
  console.log(formatTable(rows));
  const output = join(root, '.bench', 'pipeline.json');
  await writeJson(output, {
    benchmark: 'pipeline',
    command: 'npm run bench:pipeline',
    quick: QUICK,
    steps: STEPS.filter(enabled),
    date: new Date().toISOString(),
    durationSeconds: round((Date.now() - started) / 1000, 1),
    machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? null, node: process.version, platform: process.platform },
    settings: SETTINGS,
    targets: TARGETS,
    results,
    table: rows,
  });
  console.log('');
  console.log(`Written to ${output}`);
  const missed = rows.filter((row) => row.met === false);
  if (missed.length > 0) console.log(`Targets missed: ${missed.map((row) => row.metric).join('; ')}`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`bench:pipeline failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exitCode = 1;
  },
);
