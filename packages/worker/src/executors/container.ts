import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ServiceSpec } from '@conveyor/protocol';
import type { ExecutionResult, ExecutionSpec, Executor } from './executor.js';
import { endGroup, spawnGroup } from './process.js';

const execFileAsync = promisify(execFile);

export interface ContainerOptions {
  /** `podman` or `docker`, or a path to either: the two CLIs take the same arguments here. */
  cli: string;
  /** Flags before the subcommand (`--runtime runc --cgroup-manager cgroupfs` on some machines). */
  globalArgs: readonly string[];
  /** Flags added to every `run` (`--ulimit ...`, `--pull never`, resource limits). */
  runArgs: readonly string[];
  /** Network of a task's first container; unset means the runtime's default. */
  network: string | null;
  /** Marks this worker's containers, so a restarted worker can remove what a killed one left. */
  label: string;
  killGraceMs: number;
  /** The worker's environment, for the CLI itself (never handed to containers). */
  cliEnv: NodeJS.ProcessEnv;
}

const SCRIPT_MOUNT = '/.conveyor';

/**
 * What the payload may put on the runtime's command line. An image is a positional argument: one
 * starting with `-` would be read as a flag (`--privileged`), and a service's command, which follows
 * it, could then supply the rest. A workdir goes into `-v src:workdir`, where `:` and `,` add options.
 */
const IMAGE = /^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$/;
const WORKDIR = /^\/[^:,\n\0]*$/;
const SERVICE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkSpec(spec: ExecutionSpec): string | null {
  if (spec.image === '') return 'refused the task: it names no image; set `image:` in the pipeline file, or let a worker with the shell executor run it';
  if (!IMAGE.test(spec.image)) return `refused image ${JSON.stringify(spec.image)}: not an image reference`;
  if (!WORKDIR.test(spec.workdir)) return `refused workdir ${JSON.stringify(spec.workdir)}: must be an absolute path without ':' or ','`;
  for (const service of spec.services) {
    if (!IMAGE.test(service.image)) return `refused image ${JSON.stringify(service.image)} of service ${JSON.stringify(service.name)}: not an image reference`;
    if (!SERVICE_NAME.test(service.name)) return `refused service name ${JSON.stringify(service.name)}`;
  }
  return null;
}

async function writeHosts(spec: ExecutionSpec): Promise<string> {
  const names = spec.services.map((service) => service.name).join(' ');
  const path = join(spec.scriptDir, 'hosts');
  await writeFile(path, `127.0.0.1\tlocalhost ${names}\n::1\tlocalhost ${names}\n`, { mode: 0o644 });
  return path;
}

/**
 * Runs the script in a container of the payload's image with the task's directory mounted at
 * `workdir`. Services start first, detached; the first container of the task owns the network
 * namespace and every other joins it (`--network container:<id>`), so the script reaches its
 * services on localhost. Every container is removed afterwards, whatever happened.
 */
export class ContainerExecutor implements Executor {
  readonly name: string;
  private readonly live = new Set<string>();

  constructor(private readonly options: ContainerOptions) {
    this.name = options.cli.split('/').pop() ?? options.cli;
  }

  async run(spec: ExecutionSpec, signal: AbortSignal): Promise<ExecutionResult> {
    const refused = checkSpec(spec);
    if (refused !== null) {
      await spec.note(`conveyor: ${refused}`);
      return { exitCode: 125 };
    }
    const base = `conveyor-${spec.taskId.replace(/[^a-zA-Z0-9_.-]/g, '').slice(0, 40)}-${randomBytes(4).toString('hex')}`;
    const names: string[] = [];
    // Services are reachable under their names too: every container of the task gets a hosts file
    // naming them (`--add-host` is refused for containers that join another's network namespace).
    const hosts = spec.services.length === 0 ? [] : ['-v', `${await writeHosts(spec)}:/etc/hosts:ro`];
    try {
      let network = this.options.network === null ? [] : ['--network', this.options.network];
      for (const [index, service] of spec.services.entries()) {
        if (signal.aborted) return { exitCode: null };
        names.push(`${base}-svc${index}`);
        const id = await this.startService(spec, service, names[names.length - 1]!, [...network, ...hosts]);
        if (id === null) return { exitCode: 125 };
        network = ['--network', `container:${id}`];
      }
      if (signal.aborted) return { exitCode: null };
      return await this.runScript(spec, base, [...network, ...hosts], signal);
    } finally {
      await this.remove([...names, base]);
    }
  }

  private async startService(spec: ExecutionSpec, service: ServiceSpec, name: string, network: string[]): Promise<string | null> {
    const envFile = join(spec.scriptDir, `${name}.env`);
    // Service variables go through a file, not the command line, where `ps` would show them.
    const variables = Object.entries(service.env).filter(([key]) => VARIABLE.test(key));
    await writeFile(envFile, variables.map(([key, value]) => `${key}=${value.replace(/\n/g, ' ')}\n`).join(''), { mode: 0o600 });
    this.live.add(name);
    const args = [...this.options.globalArgs, 'run', '-d', '--name', name, '--label', this.options.label, ...this.options.runArgs, ...network];
    args.push('--env-file', envFile, service.image, ...service.command);
    try {
      const { stdout } = await execFileAsync(this.options.cli, args, { env: this.options.cliEnv, timeout: 300_000 });
      await spec.note(`conveyor: service ${service.name} started from ${service.image}`);
      return stdout.trim().split('\n').pop() ?? name;
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr ?? (error as Error).message;
      await spec.note(`conveyor: service ${service.name} (${service.image}) did not start: ${stderr.trim()}`);
      return null;
    }
  }

  private async runScript(spec: ExecutionSpec, name: string, network: string[], signal: AbortSignal): Promise<ExecutionResult> {
    this.live.add(name);
    const args = [...this.options.globalArgs, 'run', '--rm', '--name', name, '--label', this.options.label, ...this.options.runArgs, ...network];
    args.push('-v', `${spec.hostDir}:${spec.workdir}`, '-v', `${spec.scriptDir}:${SCRIPT_MOUNT}:ro`, '-w', spec.workdir);
    args.push('--entrypoint', '/bin/sh', spec.image, `${SCRIPT_MOUNT}/${spec.scriptName}`);
    const group = spawnGroup(this.options.cli, args, { env: this.options.cliEnv }, spec.output);
    // Ending the CLI alone could leave the container running: remove the container, then the CLI.
    const onAbort = (): void => void this.remove([name]).then(() => endGroup(group, this.options.killGraceMs));
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const code = await group.exited;
      await group.drained;
      return { exitCode: signal.aborted ? null : code };
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async remove(names: string[]): Promise<void> {
    const present = names.filter((name) => this.live.has(name));
    await this.forceRemove(present);
    for (const name of present) this.live.delete(name);
  }

  private async forceRemove(present: string[]): Promise<void> {
    // `kill` first: `rm -f` alone asks politely and waits, and a shell as PID 1 ignores SIGTERM.
    // One container per call: podman 4 skips every name of an `rm` that lists one already gone.
    const run = (args: string[]): Promise<unknown> =>
      execFileAsync(this.options.cli, [...this.options.globalArgs, ...args], { env: this.options.cliEnv, timeout: 120_000 }).catch(() => undefined);
    await Promise.all(present.map(async (name) => {
      await run(['kill', name]);
      await run(['rm', '-f', name]);
    }));
  }

  async cleanUp(): Promise<void> {
    const args = [...this.options.globalArgs, 'ps', '-aq', '--filter', `label=${this.options.label}`];
    const { stdout } = await execFileAsync(this.options.cli, args, { env: this.options.cliEnv }).catch(() => ({ stdout: '' }));
    const ids = stdout.split('\n').map((line) => line.trim()).filter((line) => line !== '');
    await this.forceRemove(ids);
  }

  killAllNow(): void {
    // Detached and unreferenced: the removals outlive the worker's own exit.
    for (const name of this.live) {
      const child = spawn(this.options.cli, [...this.options.globalArgs, 'rm', '-f', name], { env: this.options.cliEnv, detached: true, stdio: 'ignore' });
      child.unref();
    }
  }
}
