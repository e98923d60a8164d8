import { join } from 'node:path';
import type { ExecutionResult, ExecutionSpec, Executor } from './executor.js';
import { endGroup, spawnOrphanedScript, type GroupChild } from './process.js';

/** The user shell scripts run as (`--run-as`), when the worker runs as root. */
export interface RunAsUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

export interface ShellOptions {
  killGraceMs: number;
  baseEnv: NodeJS.ProcessEnv;
  runAs?: RunAsUser | null;
}

/**
 * Runs the script on this machine, in a process group of its own whose working directory is the
 * task's directory. Not isolated: the script runs as the worker's user (or `--run-as`) and sees the
 * machine. The payload's `image` and `services` do not apply (a task that needs them requires the
 * `docker` feature).
 */
export class ShellExecutor implements Executor {
  readonly name = 'shell';
  private readonly running = new Set<GroupChild>();
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly options: ShellOptions) {
    const user = options.runAs;
    this.env = user ? { ...options.baseEnv, HOME: user.home, USER: user.name, LOGNAME: user.name } : options.baseEnv;
  }

  async run(spec: ExecutionSpec, signal: AbortSignal): Promise<ExecutionResult> {
    if (spec.services.length > 0) await spec.note('conveyor: the shell executor does not start services; they are ignored');
    // The worker's own environment (its token among it) is never handed down: only a fixed base. And the
    // script is not the worker's descendant, so it cannot read the worker's /proc/<pid>/environ either.
    const user = this.options.runAs;
    const ids = user ? { uid: user.uid, gid: user.gid } : {};
    const group = spawnOrphanedScript(join(spec.scriptDir, spec.scriptName), { cwd: spec.hostDir, env: this.env, ...ids }, spec.output);
    this.running.add(group);
    const onAbort = (): void => void endGroup(group, this.options.killGraceMs);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const code = await group.exited;
      // Background children of the script do not outlive it, and must not hold the log open.
      group.signalGroup('SIGKILL');
      await group.drained;
      return { exitCode: signal.aborted ? null : code };
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.running.delete(group);
    }
  }

  killAllNow(): void {
    for (const group of this.running) group.signalGroup('SIGKILL');
  }
}

/** The variables a host task starts from, before its own: enough to find programs, nothing private. */
export function hostBaseEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
  for (const name of ['HOME', 'LANG', 'LC_ALL', 'TZ', 'USER', 'LOGNAME', 'TMPDIR']) if (env[name] !== undefined) base[name] = env[name];
  return base;
}
