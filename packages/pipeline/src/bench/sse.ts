import http from 'node:http';
import type { PipelineApi } from './api.js';
import { withHeldTask } from './held-task.js';
import { say } from './progress.js';
import { msSince, percentile, round } from './stats.js';
import type { Bench } from './steps.js';

export interface SseLatencyFigures {
  appends: number;
  chunkBytes: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Events that reached the follower before the append's answer reached the worker (counted as 0 ms). */
  beforeAnswer: number;
}

/** A follower of one log: the time each event id (a byte offset) arrived. */
class LogFollower {
  private readonly arrivals = new Map<number, bigint>();
  private readonly waiters = new Map<number, (at: bigint) => void>();
  private request: http.ClientRequest | null = null;

  async open(url: string, headers: Record<string, string>): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.request = http.get(url, { headers: { ...headers, accept: 'text/event-stream' } }, (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`log follow answered ${response.statusCode ?? 'nothing'}`));
          return;
        }
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          const at = process.hrtime.bigint();
          buffer += chunk;
          let end = buffer.indexOf('\n\n');
          while (end !== -1) {
            const id = /^id: (\d+)$/m.exec(buffer.slice(0, end));
            if (id !== null) this.arrived(Number(id[1]), at);
            buffer = buffer.slice(end + 2);
            end = buffer.indexOf('\n\n');
          }
        });
        resolve();
      });
      this.request.on('error', reject);
    });
  }

  private arrived(offset: number, at: bigint): void {
    this.arrivals.set(offset, at);
    this.waiters.get(offset)?.(at);
    this.waiters.delete(offset);
  }

  /** When the event with this id arrived (waiting for it if it has not yet). */
  async arrivalOf(offset: number, timeoutMs: number): Promise<bigint> {
    const known = this.arrivals.get(offset);
    if (known !== undefined) return known;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no event with id ${offset} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.set(offset, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  close(): void {
    this.request?.destroy();
  }
}

async function measureOn(api: PipelineApi, bench: Bench, taskId: string, appendTask: Parameters<PipelineApi['appendLog']>[1]): Promise<SseLatencyFigures> {
  const { agent, settings } = bench;
  const jobId = await api.jobOfTask(agent, taskId);
  const follower = new LogFollower();
  const path = `/api/v1/projects/${encodeURIComponent(api.projectName)}/jobs/${encodeURIComponent(jobId)}/tasks/${encodeURIComponent(taskId)}/log`;
  await follower.open(`${api.baseUrl}${path}`, api.readHeaders);
  const chunk = Buffer.from(`${'x'.repeat(settings.sseChunkBytes - 1)}\n`);
  const latencies: number[] = [];
  let beforeAnswer = 0;
  let offset = 0;
  try {
    for (let index = 0; index < settings.sseAppends; index += 1) {
      offset = await api.appendLog(agent, appendTask, offset, chunk);
      const answered = process.hrtime.bigint();
      const arrived = await follower.arrivalOf(offset, 10_000);
      const ms = Number(arrived - answered) / 1e6;
      if (ms < 0) beforeAnswer += 1;
      latencies.push(Math.max(0, ms));
      // Appends a few milliseconds apart, as a worker's output arrives, rather than back to back.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    follower.close();
  }
  return {
    appends: latencies.length,
    chunkBytes: chunk.length,
    p50Ms: round(percentile(latencies, 0.5), 2),
    p95Ms: round(percentile(latencies, 0.95), 2),
    maxMs: round(Math.max(...latencies), 2),
    beforeAnswer,
  };
}

/**
 * Latency from a worker's log append (its HTTP 200 received) to the server-sent event carrying those
 * bytes at a follower of the log, over `sseAppends` appends of one line each.
 */
export async function measureSseLatency(bench: Bench): Promise<SseLatencyFigures> {
  const { api, agent, settings } = bench;
  say(`sse: one follower of a task's log, ${settings.sseAppends} appends, latency from the append's answer to the event`);
  const start = process.hrtime.bigint();
  const figures = await withHeldTask(api, agent, async (task) => {
    const result = await measureOn(api, bench, task.id, task);
    await api.complete(agent, task);
    return result;
  });
  say(`sse: done in ${(msSince(start) / 1000).toFixed(1)} s`);
  return figures;
}
