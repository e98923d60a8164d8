import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { WorkerCredentials } from './setup.js';

/** The `conveyor` binary of this very installation, run with this very node. */
const CONVEYOR_BIN = fileURLToPath(new URL('../../bin/conveyor.js', import.meta.url));
export const WORKER_CONCURRENCY = 2;
/** On stop, the time running tasks get before the worker ends them (dev stops quickly). */
const GRACE_SECONDS = 5;
/** Past the grace, how long before the worker is killed outright. */
const KILL_AFTER_MS = (GRACE_SECONDS + 5) * 1000;

export interface LocalWorker {
  pid: number;
  /** SIGTERM, then SIGKILL if it has not exited in time; resolves once it has exited. */
  stop(): Promise<void>;
}

/** The URL the worker on this machine reaches the server at: a wildcard listen address is not one to connect to. */
export function localWorkerUrl(serverUrl: string): string {
  const url = new URL(serverUrl);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

/** Copies each line of a stream to `write`, prefixed, so the worker's lines read apart from the server's. */
function forwardLines(stream: NodeJS.ReadableStream | null, write: (text: string) => void): void {
  if (stream === null) return;
  createInterface({ input: stream }).on('line', (line) => write(`[worker] ${line}\n`));
}

/**
 * `conveyor worker` as a child process: shell executor, concurrency 2, the token from its file. `onExit`
 * is told when it exits on its own (not after stop()).
 */
export function startLocalWorker(
  options: { serverUrl: string; credentials: WorkerCredentials; env: NodeJS.ProcessEnv; stdout: (text: string) => void; stderr: (text: string) => void },
  onExit: (code: number | null, signal: NodeJS.Signals | null) => void,
): LocalWorker {
  const { credentials } = options;
  const args = [
    CONVEYOR_BIN,
    'worker',
    '--url', localWorkerUrl(options.serverUrl),
    '--token-file', credentials.tokenFile,
    '--name', credentials.name,
    '--executor', 'shell',
    '--concurrency', String(WORKER_CONCURRENCY),
    '--work-dir', credentials.workDir,
    '--grace', String(GRACE_SECONDS),
  ];
  const child: ChildProcess = spawn(process.execPath, args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  forwardLines(child.stdout, options.stdout);
  forwardLines(child.stderr, options.stderr);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    // A spawn that failed emits 'error' and no 'exit'.
    child.once('error', () => resolve());
  });
  child.once('error', (error) => options.stderr(`error: the worker could not be started: ${error.message}\n`));
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) onExit(code, signal);
  });
  return {
    pid: child.pid ?? 0,
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
