import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Readable } from 'node:stream';

/** A child in its own process group, so the whole tree it starts can be signalled at once. */
export interface GroupChild {
  child: ChildProcess;
  /** Resolves with the exit status (null when ended by a signal) once the child has exited. */
  exited: Promise<number | null>;
  /** Resolves when stdout and stderr have been read to their end. */
  drained: Promise<void>;
  signalGroup(signal: NodeJS.Signals): void;
}

export function spawnGroup(command: string, args: string[], options: SpawnOptions, output: (chunk: Buffer) => Promise<void>): GroupChild {
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', async (error) => {
      await output(Buffer.from(`conveyor: could not start ${command}: ${error.message}\n`));
      resolve(127);
    });
    child.on('exit', (code) => resolve(code));
  });
  const drained = Promise.all([pump(child.stdout, output), pump(child.stderr, output)]).then(() => undefined);
  return {
    child,
    exited,
    drained,
    signalGroup: (signal) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // ESRCH: the group is already gone.
      }
    },
  };
}

async function pump(stream: Readable | null, output: (chunk: Buffer) => Promise<void>): Promise<void> {
  if (stream === null) return;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) await output(chunk);
  } catch {
    // A pipe torn down by a kill ends the output; nothing more to read.
  }
}

/**
 * Ends a process group: SIGTERM, then SIGKILL after `graceMs` if anything is still running.
 * Resolves once the group leader has exited.
 */
export async function endGroup(group: GroupChild, graceMs: number): Promise<void> {
  group.signalGroup('SIGTERM');
  const timer = setTimeout(() => group.signalGroup('SIGKILL'), graceMs);
  await group.exited;
  clearTimeout(timer);
  group.signalGroup('SIGKILL');
}
