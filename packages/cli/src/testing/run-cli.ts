// Test support: the real `conveyor` binary in a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CONVEYOR_BIN = fileURLToPath(new URL('../../bin/conveyor.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `conveyor ...args` to completion with the given environment (added to this process's, unless
 * `inheritEnv` is false), standard input and working directory.
 */
export function runCli(args: string[], env: NodeJS.ProcessEnv, stdin = '', options: { inheritEnv?: boolean; cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const childEnv = options.inheritEnv === false ? env : { ...process.env, ...env };
    const child = spawn(process.execPath, [CONVEYOR_BIN, ...args], { env: childEnv, stdio: 'pipe', cwd: options.cwd });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/**
 * Starts a long-running `conveyor` command and resolves once a stdout line matches `ready` (within
 * `timeoutMs`, default 15 s), in `cwd` when given.
 */
export function startCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ child: ChildProcess; line: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONVEYOR_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`not ready in time:\n${output}`)), options.timeoutMs ?? 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((candidate) => ready.test(candidate));
      if (line !== undefined) {
        clearTimeout(timer);
        resolve({ child, line, output: () => output });
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready:\n${output}`));
    });
  });
}
