import { parseArgs } from 'node:util';
import { ConfigError, createWorker, resolveConfig, type WorkerFlags } from '@conveyor/worker';
import { EXIT_OK, UsageError, runCommand, type CommandGroup, type CommandIO } from '../usage.js';

export const WORKER_HELP = `Usage: conveyor worker --url URL --token-file FILE [options]

Claims tasks from a pipeline service and runs them. Each option can also be set through the
variable in brackets; the token may be given as CONVEYOR_WORKER_TOKEN instead of a file.

  --url URL                   the pipeline service (CONVEYOR_WORKER_URL)
  --token-file FILE           file holding the worker token (CONVEYOR_WORKER_TOKEN_FILE)
  --name NAME                 worker name, default the host name (CONVEYOR_WORKER_NAME)
  --arch A,B                  architectures offered, default this machine's (CONVEYOR_WORKER_ARCH)
  --features F,...            features offered; 'docker' only with a container executor (CONVEYOR_WORKER_FEATURES)
  --executor shell|podman|docker   where scripts run, default shell (CONVEYOR_WORKER_EXECUTOR)
  --concurrency N             tasks run at once, default 1 (CONVEYOR_WORKER_CONCURRENCY)
  --work-dir DIR              task directories, default $TMPDIR/conveyor-worker (CONVEYOR_WORKER_WORK_DIR)
  --grace SECONDS             on SIGTERM, time running tasks get to finish, default 300 (CONVEYOR_WORKER_GRACE)
  --keep-work                 keep task directories for debugging (CONVEYOR_WORKER_KEEP_WORK)
  --poll-wait SECONDS         long-poll time of a claim, 0-60, default 30 (CONVEYOR_WORKER_POLL_WAIT)
  --container-cli PATH        podman or docker binary, default the executor's name (CONVEYOR_WORKER_CONTAINER_CLI)
  --container-global-args A   flags before the subcommand (CONVEYOR_WORKER_CONTAINER_GLOBAL_ARGS)
  --container-run-args A      flags added to every run (CONVEYOR_WORKER_CONTAINER_RUN_ARGS)
  --container-network NET     network of a task's first container, default the runtime's (CONVEYOR_WORKER_CONTAINER_NETWORK)
  --run-as USER               run shell scripts as this user; the worker must run as root (CONVEYOR_WORKER_RUN_AS)
  --verbose                   print protocol detail (CONVEYOR_WORKER_VERBOSE)

Flags that start with a dash are given with '=': --container-run-args='--ulimit nofile=1024:1024'.
SIGTERM or SIGINT stops claiming and lets running tasks finish within --grace; a second one ends
everything at once.
`;

const OPTIONS = {
  url: { type: 'string' },
  'token-file': { type: 'string' },
  name: { type: 'string' },
  arch: { type: 'string' },
  features: { type: 'string' },
  executor: { type: 'string' },
  concurrency: { type: 'string' },
  'work-dir': { type: 'string' },
  grace: { type: 'string' },
  'keep-work': { type: 'boolean' },
  'poll-wait': { type: 'string' },
  'container-cli': { type: 'string' },
  'container-global-args': { type: 'string' },
  'container-run-args': { type: 'string' },
  'container-network': { type: 'string' },
  'run-as': { type: 'string' },
  verbose: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Turns argv into the worker's flags; throws UsageError on anything it does not know. */
export function parseWorkerArgs(argv: string[]): WorkerFlags & { help: boolean } {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return {
    help: values.help === true,
    url: values.url,
    tokenFile: values['token-file'],
    name: values.name,
    arch: values.arch,
    features: values.features,
    executor: values.executor,
    concurrency: values.concurrency,
    workDir: values['work-dir'],
    grace: values.grace,
    keepWork: values['keep-work'],
    pollWait: values['poll-wait'],
    containerCli: values['container-cli'],
    containerGlobalArgs: values['container-global-args'],
    containerRunArgs: values['container-run-args'],
    containerNetwork: values['container-network'],
    runAs: values['run-as'],
    verbose: values.verbose,
  };
}

/** A bad setting (an option, a variable, the work directory) exits 2 with its message. */
async function asUsageError<T>(body: () => Promise<T>): Promise<T> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}

export const runWorker: CommandGroup = (argv, io) => runCommand(io, false, () => startWorker(argv, io));

async function startWorker(argv: string[], io: CommandIO): Promise<number> {
  const flags = parseWorkerArgs(argv);
  if (flags.help) {
    io.stdout(WORKER_HELP);
    return EXIT_OK;
  }
  const worker = await asUsageError(async () => {
    const resolved = await resolveConfig(flags, io.env);
    for (const warning of resolved.warnings) io.stderr(`warning: ${warning}\n`);
    // Refuses a work directory that is not the worker's own, before claiming anything.
    return createWorker(resolved.config, io.env, (line) => io.stdout(`${line}\n`));
  });
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    signals += 1;
    if (signals === 1) {
      io.stdout(`${new Date().toISOString()} ${signal}: no more claims; running tasks may finish (a second signal ends them now)\n`);
      worker.shutdown();
      return;
    }
    worker.killNow();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    await worker.run();
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
  return EXIT_OK;
}
