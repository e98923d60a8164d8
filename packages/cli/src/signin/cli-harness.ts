// Test support for the signin commands: the real `conveyor` binary in child processes, with AUTH_*
// pointing at a temp directory.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONVEYOR_BIN, runCli, type CliResult } from '../testing/run-cli.js';

export function tempAuthEnv(): NodeJS.ProcessEnv {
  const dir = mkdtempSync(join(tmpdir(), 'signin-cli-'));
  // Only the AUTH_* variables: the child must not pick up a developer's own AUTH_* settings or anything else.
  return { AUTH_DATABASE_PATH: join(dir, 'signin.db'), AUTH_REALMS_PATH: join(dir, 'realms'), AUTH_PORT: '0', AUTH_HOST: '127.0.0.1' };
}

/** The child gets only `env`: it must not pick up a developer's own AUTH_* settings. */
export function runConveyor(args: string[], env: NodeJS.ProcessEnv, stdin = ''): Promise<CliResult> {
  return runCli(args, env, stdin, { inheritEnv: false });
}

/** `conveyor signin admin ... --json`, parsed. */
export async function admin(env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<{ code: number | null; json: Record<string, unknown>; stderr: string }> {
  const result = await runConveyor(['signin', 'admin', ...args, '--json'], env, stdin);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(result.stdout) as Record<string, unknown>;
  } catch {
    json = { unparsed: result.stdout };
  }
  return { code: result.code, json, stderr: result.stderr };
}

export interface ServeProcess {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
}

/** Spawns `conveyor signin serve` and waits for its `Listening on <url>` line. */
export function startServe(env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CONVEYOR_BIN, 'signin', 'serve'], { env });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no 'Listening on' line within 15 s:\n${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        resolve({ child, url: match[1], output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${output}`));
    });
  });
}
