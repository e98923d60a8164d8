import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Readable } from 'node:stream';

/** Enough of git's stderr to explain a failure without letting a chatty remote fill memory. */
export const STDERR_LIMIT = 64 * 1024;
const DEFAULT_STDOUT_LIMIT = 1024 * 1024;

/**
 * Inherited GIT_* variables that only tune transport (ssh, TLS, proxies, tracing). Everything else of
 * that family (GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_PARAMETERS, ...) is dropped: if the service were
 * started from inside a hook or a shell with them set, git would act on the wrong repository.
 */
const KEPT_GIT_VARIABLE = /^GIT_(SSH|SSH_COMMAND|SSH_VARIANT|SSL_\w+|HTTP_\w+|PROXY_\w+|TRACE\w*|CURL_VERBOSE|EXEC_PATH|CONFIG_GLOBAL)$/;

/** Lets tests count what git is asked to do (for example fetches) without replacing git. */
export interface GitContext {
  observe?: ((args: readonly string[]) => void) | undefined;
}

export interface GitSpawnOptions {
  /** Directory git must not walk up into when looking for a repository (see `ceilingFor`). */
  ceiling?: string | undefined;
  /** Own process group, so a timeout can kill git's helpers (remote-https, ssh) along with it. */
  detached?: boolean;
}

export interface GitRun extends GitSpawnOptions {
  args: string[];
  timeoutMs?: number;
  stdin?: string;
  stdoutLimit?: number;
}

export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

export function buildGitEnv(base: NodeJS.ProcessEnv, ceiling?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (!name.startsWith('GIT_') || KEPT_GIT_VARIABLE.test(name)) env[name] = value;
  }
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_ALLOW_PROTOCOL = 'file:https:http:ssh';
  env.GIT_CONFIG_NOSYSTEM = '1';
  if (ceiling !== undefined) env.GIT_CEILING_DIRECTORIES = ceiling;
  return env;
}

/**
 * The parent of a local repository path: with it as ceiling, a directory inside some other repository
 * is not mistaken for a repository (git would otherwise walk up and find the enclosing one).
 */
export function ceilingFor(path: string): string {
  try {
    return dirname(realpathSync(path));
  } catch {
    return dirname(resolve(path));
  }
}

export function spawnGit(context: GitContext, args: string[], options: GitSpawnOptions = {}): ChildProcessWithoutNullStreams {
  const argv = ['-c', 'protocol.ext.allow=never', ...args];
  context.observe?.(argv);
  return spawn('git', argv, {
    env: buildGitEnv(process.env, options.ceiling),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
}

/** Keeps at most `limit` bytes of a stream; returns a function giving what was kept. */
export function collectBounded(stream: Readable, limit: number): () => Buffer {
  const chunks: Buffer[] = [];
  let size = 0;
  stream.on('data', (chunk: Buffer) => {
    if (size >= limit) return;
    const part = chunk.subarray(0, limit - size);
    chunks.push(part);
    size += part.length;
  });
  return () => Buffer.concat(chunks);
}

export function killProcessGroup(child: ChildProcessWithoutNullStreams): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Runs git to completion, collecting bounded output; never rejects (failures are in the result). */
export function runGit(context: GitContext, run: GitRun): Promise<GitResult> {
  return new Promise((resolvePromise) => {
    const detached = run.detached ?? run.timeoutMs !== undefined;
    const child = spawnGit(context, run.args, { ceiling: run.ceiling, detached });
    const stdout = collectBounded(child.stdout, run.stdoutLimit ?? DEFAULT_STDOUT_LIMIT);
    const stderr = collectBounded(child.stderr, STDERR_LIMIT);
    let timedOut = false;
    let spawnError = '';
    const timer =
      run.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            killProcessGroup(child);
          }, run.timeoutMs);
    let settled = false;
    const settle = (code: number | null): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({ code, stdout: stdout(), stderr: spawnError + stderr().toString('utf8'), timedOut });
    };
    child.on('error', (error) => {
      spawnError = `${error.message}\n`;
      settle(null);
    });
    child.on('close', (code) => settle(code));
    // git may exit without reading its input (a bad repository); that EPIPE is not our failure.
    child.stdin.on('error', () => undefined);
    child.stdin.end(run.stdin ?? '');
  });
}

/** A one-line explanation of a failed git run, for error messages. */
export function describeGitFailure(what: string, result: GitResult): string {
  if (result.timedOut) return `${what} timed out`;
  const detail = result.stderr.trim().split('\n').filter((line) => line !== '').slice(-3).join('; ');
  return `${what} failed (exit ${result.code ?? 'signal'})${detail === '' ? '' : `: ${detail}`}`;
}
