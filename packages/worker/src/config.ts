import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { hostname, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, parseEnum, parseHttpUrl, parseInteger } from '@conveyor/kit';

export { ConfigError };

export const EXECUTORS = ['shell', 'podman', 'docker'] as const;
export type ExecutorKind = (typeof EXECUTORS)[number];

/** The worker's settings, read once at start and passed down; nothing else reads the environment. */
export interface WorkerConfig {
  url: string;
  token: string;
  name: string;
  arches: string[];
  features: string[];
  executor: ExecutorKind;
  concurrency: number;
  workDir: string;
  graceSeconds: number;
  keepWork: boolean;
  verbose: boolean;
  /** Seconds a claim may wait at the server (long poll); 0 disables it. */
  pollWaitSeconds: number;
  container: { cli: string; globalArgs: string[]; runArgs: string[]; network: string | null };
  /** The user shell scripts run as; only when the worker runs as root. */
  runAs: { name: string; uid: number; gid: number; home: string } | null;
}

/** Options as given on the command line; each falls back to its `CONVEYOR_WORKER_*` variable. */
export interface WorkerFlags {
  url?: string;
  tokenFile?: string;
  name?: string;
  arch?: string;
  features?: string;
  executor?: string;
  concurrency?: string;
  workDir?: string;
  grace?: string;
  keepWork?: boolean;
  verbose?: boolean;
  pollWait?: string;
  containerCli?: string;
  containerGlobalArgs?: string;
  containerRunArgs?: string;
  containerNetwork?: string;
  runAs?: string;
}

const VARIABLES: Record<keyof WorkerFlags, string> = {
  url: 'CONVEYOR_WORKER_URL',
  tokenFile: 'CONVEYOR_WORKER_TOKEN_FILE',
  name: 'CONVEYOR_WORKER_NAME',
  arch: 'CONVEYOR_WORKER_ARCH',
  features: 'CONVEYOR_WORKER_FEATURES',
  executor: 'CONVEYOR_WORKER_EXECUTOR',
  concurrency: 'CONVEYOR_WORKER_CONCURRENCY',
  workDir: 'CONVEYOR_WORKER_WORK_DIR',
  grace: 'CONVEYOR_WORKER_GRACE',
  keepWork: 'CONVEYOR_WORKER_KEEP_WORK',
  verbose: 'CONVEYOR_WORKER_VERBOSE',
  pollWait: 'CONVEYOR_WORKER_POLL_WAIT',
  containerCli: 'CONVEYOR_WORKER_CONTAINER_CLI',
  containerGlobalArgs: 'CONVEYOR_WORKER_CONTAINER_GLOBAL_ARGS',
  containerRunArgs: 'CONVEYOR_WORKER_CONTAINER_RUN_ARGS',
  containerNetwork: 'CONVEYOR_WORKER_CONTAINER_NETWORK',
  runAs: 'CONVEYOR_WORKER_RUN_AS',
};
/** The token itself may come from the environment (service managers), never from the command line. */
export const TOKEN_VARIABLE = 'CONVEYOR_WORKER_TOKEN';

/** The feature a worker offers only when it runs tasks in containers. */
export const CONTAINER_FEATURE = 'docker';

export async function resolveConfig(flags: WorkerFlags, env: NodeJS.ProcessEnv): Promise<{ config: WorkerConfig; warnings: string[] }> {
  const warnings: string[] = [];
  const text = (key: keyof WorkerFlags): string | undefined => {
    const value = flags[key] ?? env[VARIABLES[key]];
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
  };
  const flag = (key: 'keepWork' | 'verbose'): boolean => flags[key] === true || ['1', 'true', 'yes'].includes((env[VARIABLES[key]] ?? '').toLowerCase());

  const url = parseUrl(text('url'));
  const executor = parseEnum(`--executor (${VARIABLES.executor})`, text('executor') ?? 'shell', EXECUTORS);
  const features = list(text('features'));
  const container = executor !== 'shell';
  if (!container && features.includes(CONTAINER_FEATURE)) warnings.push(`feature '${CONTAINER_FEATURE}' dropped: it is offered only with a container executor`);
  const offered = features.filter((feature) => feature !== CONTAINER_FEATURE);
  if (container) offered.push(CONTAINER_FEATURE);

  const config: WorkerConfig = {
    url,
    token: await readToken(text('tokenFile'), env),
    name: text('name') ?? hostname(),
    arches: list(text('arch') ?? defaultArch()),
    features: [...new Set(offered)],
    executor,
    concurrency: parseInteger(`--concurrency (${VARIABLES.concurrency})`, text('concurrency') ?? '1', { min: 1, max: 256 }),
    workDir: resolve(text('workDir') ?? join(tmpdir(), 'conveyor-worker')),
    graceSeconds: parseInteger(`--grace (${VARIABLES.grace})`, text('grace') ?? '300', { min: 0, max: 86_400 }),
    keepWork: flag('keepWork'),
    verbose: flag('verbose'),
    pollWaitSeconds: parseInteger(`--poll-wait (${VARIABLES.pollWait})`, text('pollWait') ?? '30', { min: 0, max: 60 }),
    container: {
      cli: text('containerCli') ?? (executor === 'shell' ? 'podman' : executor),
      globalArgs: words(text('containerGlobalArgs')),
      runArgs: words(text('containerRunArgs')),
      network: text('containerNetwork') ?? null,
    },
    runAs: await lookUpRunAs(text('runAs'), executor),
  };
  if (config.arches.length === 0) throw new ConfigError(`--arch (${VARIABLES.arch}) names no architecture`);
  return { config, warnings };
}

function parseUrl(value: string | undefined): string {
  if (value === undefined) throw new ConfigError(`--url (${VARIABLES.url}) is required`);
  return parseHttpUrl(`--url (${VARIABLES.url})`, value).toString();
}

async function readToken(file: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  let token: string | undefined;
  if (file !== undefined) {
    try {
      token = (await readFile(file, 'utf8')).trim();
    } catch (error) {
      throw new ConfigError(`--token-file (${VARIABLES.tokenFile}) cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  } else {
    token = env[TOKEN_VARIABLE]?.trim();
  }
  if (token === undefined || token === '') throw new ConfigError(`a worker token is required: --token-file (${VARIABLES.tokenFile}) or ${TOKEN_VARIABLE}`);
  if (/[\s]/.test(token)) throw new ConfigError('the worker token must be one line without spaces');
  return token;
}

async function lookUpRunAs(name: string | undefined, executor: ExecutorKind): Promise<WorkerConfig['runAs']> {
  if (name === undefined) return null;
  const option = `--run-as (${VARIABLES.runAs})`;
  if (executor !== 'shell') throw new ConfigError(`${option} applies to the shell executor only; a container runs as its image's user (set --user through --container-run-args)`);
  if (process.getuid?.() !== 0) throw new ConfigError(`${option} needs the worker to run as root, since only root can switch users; start it as root or leave ${option} out`);
  let entry: string;
  try {
    entry = (await promisify(execFile)('getent', ['passwd', name], { encoding: 'utf8' })).stdout.trim().split('\n')[0] ?? '';
  } catch {
    throw new ConfigError(`${option}: no user ${JSON.stringify(name)} on this machine (getent passwd found none); create it or name another`);
  }
  const [user, , uid, gid, , home] = entry.split(':');
  if (Number(uid) === 0) throw new ConfigError(`${option}: ${JSON.stringify(name)} is root; name an unprivileged user, or leave ${option} out`);
  return { name: user ?? name, uid: Number(uid), gid: Number(gid), home: home || '/' };
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

/** Runtime flags are split on whitespace; none of the flags they carry need quoting. */
function words(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter((word) => word !== '');
}

function defaultArch(): string {
  const names: Record<string, string> = { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386' };
  return names[process.arch] ?? process.arch;
}
