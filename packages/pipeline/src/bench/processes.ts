import { appendFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** A port that was free a moment ago: bind port 0, read what the kernel chose, let go. */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('could not read the bound port'))));
    });
  });
}

export interface ChildServer {
  child: ChildProcess;
  pid: number;
  /** Everything the child wrote, for error reports. */
  output(): string;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts `node <args>` and resolves once a line of its stdout contains `readyText`. Rejects with the
 * child's output when it exits first or does not get ready within `timeoutMs`.
 */
export function startChild(args: string[], env: NodeJS.ProcessEnv, readyText: string, timeoutMs = 30_000): Promise<ChildServer> {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exited = false;
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', () => {
    exited = true;
  });
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  // Keep only the tail: a chatty child must not grow the benchmark's own memory.
  const keep = (text: string): void => {
    output = (output + text).slice(-20_000);
  };
  child.stderr?.on('data', keep);
  // BENCH_SERVER_LOG=<file> keeps everything the children print (for --trace-gc and the like).
  const log = process.env.BENCH_SERVER_LOG;
  if (log !== undefined && log !== '') {
    const record = (text: string): void => appendFileSync(log, text);
    child.stdout?.on('data', record);
    child.stderr?.on('data', record);
  }

  const server: ChildServer = {
    child,
    pid: child.pid ?? -1,
    output: () => output,
    async stop(graceMs = 10_000) {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
    },
  };

  return new Promise<ChildServer>((resolve, reject) => {
    const timer = setTimeout(() => {
      void server.stop(1000);
      reject(new Error(`${args.join(' ')} did not print '${readyText}' within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.stdout?.on('data', (text: string) => {
      keep(text);
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve(server);
      }
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited (${signal ?? code}) before it was ready:\n${output}`));
    });
  });
}

/** Peak resident set size of a live process in bytes (`VmHWM` of /proc/<pid>/status), or null. */
export function peakRss(pid: number): number | null {
  return readStatusKb(pid, 'VmHWM');
}

/** Current resident set size of a live process in bytes (`VmRSS`), or null. */
export function currentRss(pid: number): number | null {
  return readStatusKb(pid, 'VmRSS');
}

function readStatusKb(pid: number, field: string): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(status);
    return match?.[1] === undefined ? null : Number(match[1]) * 1024;
  } catch {
    return null;
  }
}

/** User plus system CPU seconds a live process has used so far (/proc/<pid>/stat, 100 ticks a second), or null. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}
