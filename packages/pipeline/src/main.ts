import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { createFsBlobStore, removeUnfinishedPuts } from './blobs/fs/index.js';
import { systemClock, type Clock } from '@conveyor/kit';
import type { PipelineConfig } from './config.js';
import { removeExpiredArtifacts, removeUnsettledArtifacts } from './domain/artifacts.js';
import type { PipelineDeps } from './domain/deps.js';
import { removeOrphanLogs } from './domain/manage-projects.js';
import { EventHub } from './domain/events.js';
import { WorkSignal } from './domain/work-signal.js';
import type { SessionResolver } from './http/credentials.js';
import { reapExpiredTasks } from './domain/worker-protocol.js';
import { createRepositories } from './git/repositories.js';
import { openSqliteStore } from './store/sqlite/index.js';

/** How often held tasks are checked for lapsed leases and deadlines. */
const SWEEP_INTERVAL_MS = 1000;
/** How often expired artifacts are removed: expiry is in days, and readers never see an expired one anyway. */
const ARTIFACT_SWEEP_INTERVAL_MS = 60_000;

/** Opens the store and repositories: everything the domain needs, for the server or the admin CLI. */
export function openPipeline(config: PipelineConfig, clock: Clock = systemClock): PipelineDeps {
  return {
    config,
    store: openSqliteStore(config.databasePath),
    blobs: createFsBlobStore(config.dataPath),
    repos: createRepositories({ dataPath: config.dataPath, fetchTimeoutMs: config.gitTimeoutMs }),
    clock,
    work: new WorkSignal(),
    events: new EventHub(),
  };
}

export interface RunningServer {
  app: FastifyInstance;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then closes the database. */
  stop(): Promise<void>;
}

/**
 * Start-up recovery, before anything else writes: uploads cut off by a crash left unfinished files and
 * pending records, and artifacts may have expired while the service was down.
 */
export async function recoverPipeline(deps: PipelineDeps): Promise<void> {
  await removeUnfinishedPuts(deps.config.dataPath);
  await removeUnsettledArtifacts(deps);
  // Logs of removed projects' tasks that a crash (or a racing append) left behind.
  await removeOrphanLogs(deps);
  await removeExpiredArtifacts(deps);
}

export interface Sweeps {
  /** Stops the timers and waits for a running artifact sweep. */
  stop(): Promise<void>;
}

/** The background work of a running service: lapsed leases and deadlines every second, expired artifacts every minute. */
export function startSweeps(deps: PipelineDeps, log: FastifyBaseLogger): Sweeps {
  const sweeper = setInterval(() => {
    reapExpiredTasks(deps).catch((error: unknown) => log.error({ err: error }, 'sweep failed'));
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();
  let artifactSweep: Promise<unknown> | null = null;
  const artifactSweeper = setInterval(() => {
    // One sweep at a time: a long one (a mass expiry) must not be joined by the next.
    artifactSweep ??= removeExpiredArtifacts(deps)
      .catch((error: unknown) => log.error({ err: error }, 'artifact expiry sweep failed'))
      .finally(() => (artifactSweep = null));
  }, ARTIFACT_SWEEP_INTERVAL_MS);
  artifactSweeper.unref();
  return {
    async stop() {
      clearInterval(sweeper);
      clearInterval(artifactSweeper);
      await artifactSweep;
    },
  };
}

export async function startPipelineServer(
  config: PipelineConfig,
  clock: Clock = systemClock,
  options: { sessions?: SessionResolver } = {},
): Promise<RunningServer> {
  const deps = openPipeline(config, clock);
  await recoverPipeline(deps);
  const shutdown = new AbortController();
  const app = await buildApp(deps, { shutdown: shutdown.signal, sessions: options.sessions });
  const address = await app.listen({ port: config.port, host: config.host });
  const sweeps = startSweeps(deps, app.log);
  let stopping: Promise<void> | null = null;
  return {
    app,
    url: address,
    stop() {
      stopping ??= (async () => {
        await sweeps.stop();
        shutdown.abort();
        await app.close();
        await deps.repos.close();
        await deps.store.close();
      })();
      return stopping;
    },
  };
}
