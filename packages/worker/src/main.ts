import { Agent } from './agent.js';
import { ProtocolClient } from './client.js';
import { TOKEN_VARIABLE, type WorkerConfig } from './config.js';
import { ContainerExecutor } from './executors/container.js';
import type { Executor } from './executors/executor.js';
import { hostBaseEnv, ShellExecutor } from './executors/shell.js';
import { prepareWorkDir } from './work-dir.js';

/** How long a process tree gets between SIGTERM and SIGKILL when the worker ends a script. */
const KILL_GRACE_MS = 5_000;

export interface Worker {
  /** Resolves once the worker has stopped claiming and every task it held is over. */
  run(): Promise<void>;
  shutdown(): void;
  killNow(): void;
}

/**
 * Builds a worker from its config; `print` receives one line per event (never the token). Throws
 * ConfigError when the work directory is not the worker's own.
 */
export async function createWorker(config: WorkerConfig, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<Worker> {
  const stamp = (line: string): void => print(`${new Date().toISOString()} ${line}`);
  const { removed } = await prepareWorkDir(config.workDir, { runAs: config.runAs !== null });
  if (removed > 0) stamp(`removed ${removed} task director${removed === 1 ? 'y' : 'ies'} left in ${config.workDir} by an earlier run`);
  const client = new ProtocolClient({ url: config.url, token: config.token, trace: config.verbose ? (line) => stamp(`debug: ${line}`) : undefined });
  const agent = new Agent(config, client, createExecutor(config, env), stamp);
  stamp(
    `conveyor worker ${config.name} started: url=${config.url} executor=${config.executor} concurrency=${config.concurrency} ` +
      `arches=${config.arches.join(',')} features=${config.features.join(',') || '-'} work-dir=${config.workDir}` +
      (config.runAs === null ? '' : ` run-as=${config.runAs.name}`),
  );
  return {
    run: async () => {
      try {
        await agent.run();
      } finally {
        client.close();
        stamp('conveyor worker stopped');
      }
    },
    shutdown: () => agent.shutdown(),
    killNow: () => agent.killNow(),
  };
}

function createExecutor(config: WorkerConfig, env: NodeJS.ProcessEnv): Executor {
  if (config.executor === 'shell') return new ShellExecutor({ killGraceMs: KILL_GRACE_MS, baseEnv: hostBaseEnv(env), runAs: config.runAs });
  const cliEnv = { ...env };
  delete cliEnv[TOKEN_VARIABLE];
  return new ContainerExecutor({
    ...config.container,
    label: `conveyor.worker=${config.name}`,
    killGraceMs: KILL_GRACE_MS,
    cliEnv,
  });
}
