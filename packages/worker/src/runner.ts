import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClaimedTask, CompleteRequest } from '@conveyor/protocol';
import { findArtifacts, uploadArtifacts } from './artifacts.js';
import { isRetryable, ServerError, type ProtocolClient } from './client.js';
import type { WorkerConfig } from './config.js';
import type { Executor } from './executors/executor.js';
import { LogStream } from './log-stream.js';
import { buildScript } from './script.js';
import { extractSource } from './source.js';
import { Backoff, sleep } from './timing.js';
import { taskDirectoryName } from './work-dir.js';

export interface RunnerDeps {
  config: Pick<WorkerConfig, 'workDir' | 'keepWork' | 'features' | 'runAs'>;
  client: ProtocolClient;
  executor: Executor;
  print: (line: string) => void;
}

/** Why the worker itself ended a script; each is also the `error` it reports. */
export type EndReason = 'canceled' | 'timeout' | 'worker shutdown';

const SCRIPT_NAME = 'script.sh';

/**
 * One claimed task, from source download to completion. A heartbeat loop runs alongside for the
 * whole life of the task: it learns of cancellation, and it is the lease watchdog. While the
 * server is unreachable the worker keeps the log (spooled) and the outcome and keeps trying;
 * once the lease has passed, or the server says the task is no longer ours, it drops them.
 */
export class TaskRun {
  private readonly scriptControl = new AbortController();
  /** Aborted when the task is over for this worker: finished or lost. Wakes every wait. */
  private readonly over = new AbortController();
  private endReason: EndReason | null = null;
  private lostReason: string | null = null;
  private readonly claimedAt = Date.now();
  private lastBeat = this.claimedAt;
  private log: LogStream | null = null;
  private artifacts = 0;
  private serverState: string | null = null;

  constructor(readonly task: ClaimedTask, private readonly deps: RunnerDeps) {}

  /** Ends the script from outside; the task completes as failed with `reason` as its error. */
  end(reason: EndReason): void {
    if (this.endReason !== null || this.lostReason !== null) return;
    this.endReason = reason;
    this.scriptControl.abort();
  }

  async run(): Promise<void> {
    const { task, deps } = this;
    const started = Date.now();
    deps.print(`claimed task ${task.name} (${task.id}) attempt ${task.attempt}`);
    const dir = join(deps.config.workDir, taskDirectoryName(task.id, task.attempt));
    const beats = this.beat();
    let log: LogStream | null = null;
    let outcome: CompleteRequest;
    try {
      log = await this.prepare(dir);
      outcome = await this.executeWithTimeout(dir, log);
      await log.finish();
    } catch (error) {
      // No place to work in (a full disk, a removed work dir): say so to the server rather than go silent.
      outcome = { success: false, exit_code: null, error: `worker error: ${(error as Error).message}` };
    }
    if (this.lostReason === null) await this.complete(outcome);
    this.over.abort();
    await beats;
    await this.removeDirectory(dir);
    this.printEnd(outcome, log?.size ?? 0, started);
  }

  /**
   * The task directory and everything in it is private (0700, files 0600): the script holds the
   * task's secrets. With `--run-as` the script's user owns the directories it works in; the log spool
   * stays the worker's.
   */
  private async prepare(dir: string): Promise<LogStream> {
    await mkdir(dir, { mode: 0o700 });
    await mkdir(join(dir, 'src'), { mode: 0o700 });
    await mkdir(join(dir, 'script'), { mode: 0o700 });
    const runAs = this.deps.config.runAs;
    if (runAs !== null) for (const path of [dir, join(dir, 'src'), join(dir, 'script')]) await chown(path, runAs.uid, runAs.gid);
    const log = await LogStream.open({
      spoolPath: join(dir, 'log'), url: this.task.endpoints.log, client: this.deps.client, masked: this.task.masked, onRejected: (why) => this.lose(why),
      onFull: (stored) => this.deps.print(`task ${this.task.name} (${this.task.id}): the server takes no more log after ${stored} bytes; the rest is dropped`),
    });
    this.log = log;
    return log;
  }

  private async executeWithTimeout(dir: string, log: LogStream): Promise<CompleteRequest> {
    // Counted from the claim, as the server counts it: past timeout (plus a grace) it fails the task itself.
    const timer = setTimeout(() => this.end('timeout'), this.task.timeout * 1000 - (Date.now() - this.claimedAt));
    try {
      return await this.execute(dir, log);
    } catch (error) {
      const outcome = this.endReason !== null ? this.ended() : { success: false, exit_code: null, error: `worker error: ${(error as Error).message}` };
      await log.note(`conveyor: ${outcome.error}`);
      return outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  private async removeDirectory(dir: string): Promise<void> {
    if (this.deps.config.keepWork) return;
    await rm(dir, { recursive: true, force: true }).catch((error: Error) => this.deps.print(`could not remove ${dir}: ${error.message}`));
  }

  private printEnd(outcome: CompleteRequest, logBytes: number, started: number): void {
    const { task, deps } = this;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    if (this.lostReason !== null) {
      deps.print(`task ${task.name} (${task.id}) lost after ${seconds}s: ${this.lostReason}; dropped its log and outcome`);
      return;
    }
    const word = outcome.error ?? (outcome.success ? 'success' : 'failure');
    const state = this.serverState === null ? '' : ` state=${this.serverState}`;
    deps.print(`task ${task.name} (${task.id}) ${word}: exit_code=${outcome.exit_code ?? '-'} duration=${seconds}s log=${logBytes}B artifacts=${this.artifacts}${state}`);
  }

  private async execute(dir: string, log: LogStream): Promise<CompleteRequest> {
    const { task, deps } = this;
    const missing = task.requires.filter((feature) => !deps.config.features.includes(feature));
    if (missing.length > 0) return this.failWith(log, `worker lacks required features: ${missing.join(', ')}`);
    const src = join(dir, 'src');
    await this.fetchSource(src, log);
    if (this.lostReason !== null || this.endReason !== null) return this.ended();

    const script = buildScript(task.script, task.env);
    if (script.rejected.length > 0) await log.note(`conveyor: variables not exported (not shell names): ${script.rejected.join(', ')}`);
    const scriptPath = join(dir, 'script', SCRIPT_NAME);
    await writeFile(scriptPath, script.text, { mode: 0o600 });
    if (deps.config.runAs !== null) await chown(scriptPath, deps.config.runAs.uid, deps.config.runAs.gid);

    const spec = {
      taskId: task.id, image: task.image, workdir: task.workdir, hostDir: src, scriptDir: join(dir, 'script'), scriptName: SCRIPT_NAME,
      services: task.services, output: (chunk: Buffer) => log.write(chunk), note: (text: string) => log.note(text),
    };
    const result = await deps.executor.run(spec, this.scriptControl.signal);
    if (this.lostReason !== null || this.endReason !== null) return this.ended();

    let error: string | null = null;
    if (task.artifacts.paths.length > 0) {
      const found = await findArtifacts(src, task.artifacts.paths);
      for (const note of found.notes) await log.note(`conveyor: ${note}`);
      const uploaded = await uploadArtifacts(deps.client, task.endpoints.artifact, found.files, this.scriptControl.signal);
      this.artifacts = uploaded.uploaded;
      if (uploaded.failure !== null) {
        error = `artifact upload failed: ${uploaded.failure}`;
        await log.note(`conveyor: ${error}`);
      }
    }
    if (this.lostReason !== null || this.endReason !== null) return this.ended();
    return { success: result.exitCode === 0 && error === null, exit_code: result.exitCode, error };
  }

  private ended(): CompleteRequest {
    return { success: false, exit_code: null, error: this.endReason ?? 'lost' };
  }

  private async failWith(log: LogStream, error: string): Promise<CompleteRequest> {
    await log.note(`conveyor: ${error}`);
    return { success: false, exit_code: null, error };
  }

  /** Downloads and extracts the source, starting over on a broken download while the lease holds. */
  private async fetchSource(src: string, log: LogStream): Promise<void> {
    const backoff = new Backoff(250, 5_000);
    for (let attempt = 1; ; attempt++) {
      try {
        const archive = await this.deps.client.openSource(this.task.endpoints.source);
        const { skipped } = await extractSource(archive, src, this.deps.config.runAs);
        for (const entry of skipped) await log.note(`conveyor: source entry skipped: ${entry}`);
        return;
      } catch (error) {
        const refused = error instanceof ServerError && !isRetryable(error);
        if (refused || attempt >= 10 || this.over.signal.aborted || this.scriptControl.signal.aborted) {
          throw new Error(`source download failed: ${(error as Error).message}`);
        }
        await rm(src, { recursive: true, force: true });
        await sleep(backoff.next(), this.over.signal);
      }
    }
  }

  /** Reports the outcome, retrying until the server answers (or the lease is gone). */
  private async complete(outcome: CompleteRequest): Promise<void> {
    const backoff = new Backoff(250, 5_000);
    while (this.lostReason === null) {
      try {
        this.serverState = (await this.deps.client.complete(this.task.endpoints.done, outcome)).state;
        return;
      } catch (error) {
        if (!isRetryable(error)) return this.lose(`the server refused the outcome (${(error as Error).message})`);
      }
      await sleep(backoff.next(), this.over.signal);
    }
  }

  private async beat(): Promise<void> {
    const intervalMs = this.task.heartbeat_interval * 1000;
    // The claim itself started the lease, so the first beat is due one interval later.
    await sleep(intervalMs, this.over.signal);
    while (!this.over.signal.aborted) {
      try {
        const answer = await this.deps.client.heartbeat(this.task.endpoints.heartbeat);
        this.lastBeat = Date.now();
        if (answer.cancel) this.end('canceled');
      } catch (error) {
        if (this.over.signal.aborted) return;
        if (!isRetryable(error)) return this.lose(`the server no longer holds the task (${(error as Error).message})`);
      }
      // Three missed intervals and the server has given the task to someone else.
      if (Date.now() - this.lastBeat > 3 * intervalMs) return this.lose('its lease passed while the server was unreachable');
      await sleep(intervalMs, this.over.signal);
    }
  }

  private lose(reason: string): void {
    if (this.lostReason !== null) return;
    this.lostReason = reason;
    this.scriptControl.abort();
    this.log?.abandon();
    this.over.abort();
  }
}
