// Test support: the real `conveyor dev` (combined server, shell worker, demo project) in a child
// process on a free port, and the real `conveyor` admin commands against its data directory.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_GIT_ENV } from '@conveyor/kit/testing';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CONVEYOR_BIN = join(REPOSITORY_ROOT, 'packages/cli/bin/conveyor.js');

export const ADMIN = { username: 'admin', password: 'correct horse battery staple' } as const;

export interface Product {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  dataPath: string;
  /** Everything the server and its worker printed so far. */
  output(): string;
  /** `conveyor ARGS` with the server's data paths; resolves with its output, rejects on a non-zero exit. */
  cli(args: string[], stdin?: string): Promise<string>;
  stop(): Promise<void>;
}

function productEnv(dataPath: string, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    ...TEST_GIT_ENV,
    CONVEYOR_DATA_PATH: dataPath,
    CONVEYOR_PORT: '0',
    CONVEYOR_HOST: '127.0.0.1',
    CONVEYOR_ADMIN_PASSWORD: ADMIN.password,
    AUTH_DATABASE_PATH: join(dataPath, 'signin.db'),
    AUTH_REALMS_PATH: join(dataPath, 'realms'),
    PIPELINE_DATABASE_PATH: join(dataPath, 'pipeline.db'),
    PIPELINE_DATA_PATH: join(dataPath, 'pipeline'),
    ...extra,
  };
}

function runCommand(args: string[], env: NodeJS.ProcessEnv, stdin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONVEYOR_BIN, ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`conveyor ${args.join(' ')} exited ${code}:\n${stderr}${stdout}`))));
    child.stdin.end(stdin);
  });
}

function waitForListening(child: ChildProcessWithoutNullStreams, output: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`conveyor dev printed no 'Listening on' line within 30 s:\n${output()}`)), 30_000);
    const check = () => {
      const match = /Listening on (http:\/\/\S+)/.exec(output());
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`conveyor dev exited with ${code}:\n${output()}`));
    });
  });
}

/** Starts `conveyor dev` in a fresh directory: administrator `admin` (ADMIN.password), the demo project, a worker. */
export async function startProduct(options: { env?: NodeJS.ProcessEnv } = {}): Promise<Product> {
  const directory = mkdtempSync(join(tmpdir(), 'conveyor-web-'));
  const dataPath = join(directory, 'data');
  const env = productEnv(dataPath, options.env ?? {});
  const child = spawn(process.execPath, [CONVEYOR_BIN, 'dev'], { cwd: directory, env });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let url: string;
  try {
    url = await waitForListening(child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port: Number(new URL(url).port),
    dataPath,
    output: () => output,
    cli: (args, stdin = '') => runCommand(args, env, stdin),
    async stop() {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
