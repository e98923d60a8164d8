import type { ClaimRequest } from '@conveyor/protocol';
import { ServerError, UnreadableTaskError, type ProtocolClient } from './client.js';
import type { WorkerConfig } from './config.js';
import type { Executor } from './executors/executor.js';
import { TaskRun } from './runner.js';
import { Backoff, sleep } from './timing.js';

/**
 * The claim loop: `concurrency` slots, each claiming (long poll where the server has one), running
 * the task, and claiming again. A 204 that came back at once means the server does not long-poll,
 * so the slot backs off with jitter; errors back off the same way, longer. Nothing the server does
 * ends the loop: only `shutdown`.
 */
export class Agent {
  private readonly running = new Set<TaskRun>();
  private readonly stopClaiming = new AbortController();
  private graceTimer: NodeJS.Timeout | undefined;
  private lastComplaint = '';

  constructor(
    private readonly config: WorkerConfig,
    private readonly client: ProtocolClient,
    private readonly executor: Executor,
    private readonly print: (line: string) => void,
  ) {}

  async run(): Promise<void> {
    await this.executor.cleanUp?.();
    const slots = Array.from({ length: this.config.concurrency }, () => this.slot());
    await Promise.all(slots);
    clearTimeout(this.graceTimer);
  }

  /** Stops claiming; running tasks get the grace period, then are ended as `worker shutdown`. */
  shutdown(): void {
    if (this.stopClaiming.signal.aborted) return;
    this.stopClaiming.abort();
    if (this.running.size > 0) this.print(`shutting down: waiting up to ${this.config.graceSeconds}s for ${this.running.size} running task(s)`);
    this.graceTimer = setTimeout(() => {
      for (const run of this.running) run.end('worker shutdown');
    }, this.config.graceSeconds * 1000);
  }

  /** Ends every process and container at once (second signal); the caller exits right after. */
  killNow(): void {
    this.executor.killAllNow?.();
  }

  private async slot(): Promise<void> {
    const idle = new Backoff(500, 10_000);
    const failing = new Backoff(1_000, 30_000);
    const request: ClaimRequest = { arches: this.config.arches, features: this.config.features, name: this.config.name };
    while (!this.stopClaiming.signal.aborted) {
      const asked = Date.now();
      let task;
      try {
        task = await this.client.claim(request, this.config.pollWaitSeconds, this.stopClaiming.signal);
        failing.reset();
        this.lastComplaint = '';
      } catch (error) {
        if (this.stopClaiming.signal.aborted) break;
        if (error instanceof UnreadableTaskError) await this.refuseTask(error);
        this.complain(`claim failed${hintFor(error)}: ${(error as Error).message}`);
        await sleep(failing.next(), this.stopClaiming.signal);
        continue;
      }
      if (task === null) {
        // A server that held the request was long-polling: ask again at once.
        if (Date.now() - asked < 1_000) await sleep(idle.next(), this.stopClaiming.signal);
        else idle.reset();
        continue;
      }
      idle.reset();
      if (this.config.verbose) {
        // The payload's shape, never its values: env and masked hold secrets.
        this.print(
          `debug: task ${task.id}: image=${task.image} workdir=${task.workdir} timeout=${task.timeout}s heartbeat=${task.heartbeat_interval}s ` +
            `lines=${task.script.length} env=${Object.keys(task.env).length} masked=${task.masked.length} services=${task.services.length} artifacts=${JSON.stringify(task.artifacts.paths)}`,
        );
      }
      const run = new TaskRun(task, { config: this.config, client: this.client, executor: this.executor, print: this.print });
      this.running.add(run);
      try {
        await run.run();
      } catch (error) {
        this.print(`task ${task.name} (${task.id}) failed inside the worker: ${(error as Error).message}`);
      } finally {
        this.running.delete(run);
      }
    }
  }

  /** Fails a task the worker could not read, so it does not bounce between workers until its lease runs out. */
  private async refuseTask(error: UnreadableTaskError): Promise<void> {
    if (error.doneUrl === null) return;
    const outcome = { success: false, exit_code: null, error: `worker could not read the task: ${error.message}`.slice(0, 4096) };
    await this.client.complete(error.doneUrl, outcome).catch(() => undefined);
  }

  /** One line per distinct problem, so a long outage does not flood the output. */
  private complain(line: string): void {
    if (line === this.lastComplaint) return;
    this.lastComplaint = line;
    this.print(line);
  }
}

function hintFor(error: unknown): string {
  if (!(error instanceof ServerError)) return '';
  if (error.status === 401) return ' (check the worker token)';
  if (error.status === 404) return ' (check --url)';
  return '';
}
