import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHmac } from 'node:crypto';
import net from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
/** The `conveyor` CLI of this checkout: the stack runs the real commands an operator would. */
export const CONVEYOR_BIN = resolve(fileURLToPath(import.meta.url), '../../../../cli/bin/conveyor.js');

export interface JobRead {
  job: { id: string; state: string };
  tasks: { id: string; name: string; state: string; exit_code: number | null; attempt: number; worker_name: string | null }[];
}
export interface TaskRead {
  task: { id: string; name: string; state: string; error: string | null; exit_code: number | null; attempt: number; log_size: number; worker_name: string | null; started_at: number | null; finished_at: number | null };
  artifacts: { id: string; path: string; size: number; sha256: string; url: string }[];
}

/** A process started by the stack, with its output collected. */
export class Proc {
  output = '';
  readonly exited: Promise<number | null>;

  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  }

  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match !== null) return match;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} in:\n${this.output}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }
}

/**
 * The real pipeline service on a free port with its own database and data directory, driven
 * through the real CLI and HTTP API, plus real worker processes. Nothing is mocked.
 */
export class Stack {
  readonly workers: Proc[] = [];

  private constructor(readonly dir: string, public server: Proc, readonly url: string, private readonly env: NodeJS.ProcessEnv) {}

  /** `port` pins the port, so the service can be restarted where its workers expect it. */
  static async start(options: { heartbeatInterval?: number; port?: number; maxLogBytes?: number } = {}): Promise<Stack> {
    const dir = await mkdtemp(join(tmpdir(), 'conveyor-e2e-'));
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PIPELINE_DATABASE_PATH: join(dir, 'pipeline.db'),
      PIPELINE_DATA_PATH: join(dir, 'data'),
      PIPELINE_PORT: String(options.port ?? 0),
      PIPELINE_HOST: '127.0.0.1',
      PIPELINE_LOG_LEVEL: 'warn',
      PIPELINE_HEARTBEAT_INTERVAL: String(options.heartbeatInterval ?? 1),
      PIPELINE_MAX_LOG_BYTES: String(options.maxLogBytes ?? 256 * 1024 * 1024),
    };
    const server = await startServer(dir, env);
    try {
      const [, url] = await server.waitFor(/Listening on (http:\/\/\S+)/);
      return new Stack(dir, server, url!, env);
    } catch (error) {
      await server.stop('SIGKILL');
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** Stops the service (as an outage), waits `downMs`, and starts it again on the same port and data. */
  async restartServer(downMs: number): Promise<void> {
    await this.server.stop('SIGKILL');
    await new Promise((r) => setTimeout(r, downMs));
    this.server = await startServer(this.dir, this.env);
    await this.server.waitFor(/Listening on/);
  }

  async cli<T>(...args: string[]): Promise<T> {
    const { stdout } = await execFileAsync(process.execPath, [CONVEYOR_BIN, 'pipeline', 'admin', ...args, '--json'], { cwd: this.dir, env: this.env });
    return JSON.parse(stdout) as T;
  }

  createProject(name: string, repo: string): Promise<{ id: string; trigger_secret: string }> {
    return this.cli('project', 'create', '--name', name, '--repo', repo, '--visibility', 'public');
  }

  /** A secret value comes on standard input, as the CLI requires (never on the command line). */
  async setSecret(project: string, name: string, value: string): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        process.execPath,
        [CONVEYOR_BIN, 'pipeline', 'admin', 'variable', 'set', project, name, '--secret', '--value-stdin', '--json'],
        { cwd: this.dir, env: this.env },
        (error) => (error === null ? resolve() : reject(error)),
      );
      child.stdin?.end(`${value}\n`);
    });
  }

  /** Creates a worker token and writes it to a file, as an operator would. */
  async createWorkerToken(name: string): Promise<{ tokenFile: string; token: string }> {
    const { token } = await this.cli<{ token: string }>('worker', 'create', '--name', name);
    const tokenFile = join(this.dir, `${name}.token`);
    await writeFile(tokenFile, `${token}\n`, { mode: 0o600 });
    return { tokenFile, token };
  }

  /** Starts `conveyor worker` as its own process. */
  async startWorker(name: string, args: string[] = [], url = this.url, reuseTokenFile?: string): Promise<Proc> {
    const tokenFile = reuseTokenFile ?? (await this.createWorkerToken(name)).tokenFile;
    return this.spawnWorker(name, ['--token-file', tokenFile, ...args], { PATH: process.env.PATH, HOME: process.env.HOME }, url);
  }

  /** Starts `conveyor worker` with its token in CONVEYOR_WORKER_TOKEN, as a service manager would give it. */
  async startWorkerWithTokenVariable(name: string, args: string[] = []): Promise<{ worker: Proc; token: string }> {
    const { token } = await this.createWorkerToken(name);
    const worker = await this.spawnWorker(name, args, { PATH: process.env.PATH, HOME: process.env.HOME, CONVEYOR_WORKER_TOKEN: token });
    return { worker, token };
  }

  private async spawnWorker(name: string, args: string[], env: NodeJS.ProcessEnv, url = this.url): Promise<Proc> {
    const child = spawn(process.execPath, [CONVEYOR_BIN, 'worker', '--url', url, '--name', name, '--work-dir', join(this.dir, `work-${name}`), '--poll-wait', '2', ...args], { env });
    const worker = new Proc(child);
    this.workers.push(worker);
    await worker.waitFor(/conveyor worker \S+ started/);
    return worker;
  }

  async createJob(project: { id: string; trigger_secret: string }, sha: string): Promise<string> {
    const body = JSON.stringify({ sha, ref: 'refs/heads/main' });
    const response = await fetch(`${this.url}/api/v1/projects/${project.id}/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', project.trigger_secret).update(body).digest('hex')}` },
      body,
    });
    const answer = (await response.json()) as { job_id?: string };
    if (response.status !== 200 || answer.job_id === undefined) throw new Error(`job creation failed: ${response.status} ${JSON.stringify(answer)}`);
    return answer.job_id;
  }

  async cancelJob(project: { id: string; trigger_secret: string }, job: string): Promise<void> {
    // The body names the job: the signature of an empty body only reads.
    const body = JSON.stringify({ job });
    const response = await fetch(`${this.url}/api/v1/projects/${project.id}/jobs/${job}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', project.trigger_secret).update(body).digest('hex')}` },
      body,
    });
    if (response.status !== 200) throw new Error(`cancel failed: ${response.status} ${await response.text()}`);
  }

  async readJob(project: string, job: string): Promise<JobRead> {
    return this.getJson(`/api/v1/projects/${project}/jobs/${job}`);
  }

  async readTask(task: string): Promise<TaskRead> {
    return this.getJson(`/api/v1/tasks/${task}`);
  }

  async readLog(project: string, job: string, task: string, attempt?: number): Promise<Buffer> {
    const query = attempt === undefined ? '' : `?attempt=${attempt}`;
    const response = await fetch(`${this.url}/api/v1/projects/${project}/jobs/${job}/tasks/${task}/log${query}`);
    if (response.status !== 200) throw new Error(`log read failed: ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  }

  async download(url: string): Promise<Buffer> {
    const response = await fetch(url);
    if (response.status !== 200) throw new Error(`download failed: ${response.status}`);
    return Buffer.from(await response.arrayBuffer());
  }

  /** Polls until the job is no longer running. */
  async waitForJob(project: string, job: string, timeoutMs = 60_000): Promise<JobRead> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const read = await this.readJob(project, job);
      if (read.job.state !== 'running') return read;
      if (Date.now() > deadline) throw new Error(`job still running: ${JSON.stringify(read)}\n${this.workers.map((w) => w.output).join('\n')}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async waitForTask(task: string, predicate: (read: TaskRead) => boolean, timeoutMs = 30_000): Promise<TaskRead> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const read = await this.readTask(task);
      if (predicate(read)) return read;
      if (Date.now() > deadline) throw new Error(`task never matched: ${JSON.stringify(read)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.stop('SIGKILL')));
    await this.server.stop();
    await rm(this.dir, { recursive: true, force: true });
  }

  private async getJson<T>(path: string): Promise<T> {
    const response = await fetch(`${this.url}${path}`);
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  }
}

function startServer(dir: string, env: NodeJS.ProcessEnv): Promise<Proc> {
  return Promise.resolve(new Proc(spawn(process.execPath, [CONVEYOR_BIN, 'pipeline', 'serve'], { cwd: dir, env })));
}

/** A port that was free a moment ago (for a service that must come back on the same one). */
export async function findFreePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export function byName(read: JobRead): Record<string, JobRead['tasks'][number]> {
  return Object.fromEntries(read.tasks.map((task) => [task.name, task]));
}
