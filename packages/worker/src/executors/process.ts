import { spawn, type SpawnOptions } from 'node:child_process';
import type { Readable } from 'node:stream';

/** A child in its own process group, so the whole tree it starts can be signalled at once. */
export interface GroupChild {
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

/**
 * The wrapper `setsid -f` starts: it reports its process id (its new session's process group), runs the
 * script, then reports the script's exit status. fd 3 is the report pipe; the script does not get it.
 */
const WRAPPER = 'echo "$$" >&3; /bin/sh "$0" 3>&-; echo "$?" >&3';

/**
 * Starts `/bin/sh script` so that no process of the worker is among its ancestors: `setsid -f` forks a
 * child into a new session and exits at once, so the script's parent is a small wrapper whose own
 * parent is init (or the nearest subreaper). A script can read `/proc/<pid>/environ` of every process
 * up its parent chain that runs as the same user; none of them is the worker, whose environment may
 * hold its token. `&` in a shell would orphan it too, but makes the script ignore SIGINT and SIGQUIT.
 */
export function spawnOrphanedScript(script: string, options: SpawnOptions, output: (chunk: Buffer) => Promise<void>): GroupChild {
  const child = spawn('setsid', ['-f', '/bin/sh', '-c', WRAPPER, script], { ...options, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
  let pgid: number | null = null;
  const queued: NodeJS.Signals[] = [];
  const send = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pgid!, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', async (error) => {
      await output(Buffer.from(`conveyor: could not start setsid (util-linux), which the shell executor needs: ${error.message}\n`));
      resolve(127);
    });
    let report = '';
    const status = child.stdio[3] as Readable;
    status.on('data', (chunk: Buffer) => {
      report += chunk.toString();
      const lines = report.split('\n');
      if (pgid === null && lines.length > 1) {
        pgid = Number(lines[0]);
        for (const signal of queued.splice(0)) send(signal);
      }
      if (lines.length > 2) resolve(Number(lines[1]));
    });
    // The wrapper was killed before it could report: the script was ended from outside.
    status.on('close', () => resolve(null));
  });
  const drained = Promise.all([pump(child.stdout, output), pump(child.stderr, output)]).then(() => undefined);
  return {
    exited,
    drained,
    signalGroup: (signal) => {
      if (pgid === null) queued.push(signal);
      else send(signal);
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
