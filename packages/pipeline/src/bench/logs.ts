import type { Agent } from 'node:http';
import type { ClaimedTaskRef, PipelineApi } from './api.js';
import { chunkAt, CHUNK_BYTES } from './body.js';
import { every, say } from './progress.js';
import { mbPerSecond, MIB, msSince, percentile } from './stats.js';

export interface LogIngestFigures {
  bytes: number;
  chunkBytes: number;
  chunks: number;
  elapsedMs: number;
  mbPerSecond: number;
  appendP50Ms: number;
  appendP99Ms: number;
}

/** Appends `totalBytes` to the task's log in 64 KiB chunks, one after the other, each at the offset the last answer gave. */
export async function ingestLog(api: PipelineApi, agent: Agent, task: ClaimedTaskRef, pool: readonly Buffer[], totalBytes: number): Promise<LogIngestFigures> {
  const chunks = Math.ceil(totalBytes / CHUNK_BYTES);
  const times: number[] = [];
  let offset = 0;
  const start = process.hrtime.bigint();
  const stop = every(2000, () => say(`  log: ${(offset / MIB).toFixed(0)} of ${(totalBytes / MIB).toFixed(0)} MiB appended`));
  try {
    for (let index = 0; index < chunks; index += 1) {
      const chunk = chunkAt(pool, index, Math.min(CHUNK_BYTES, totalBytes - offset));
      const sent = process.hrtime.bigint();
      const next = await api.appendLog(agent, task, offset, chunk);
      times.push(msSince(sent));
      if (next !== offset + chunk.length) throw new Error(`log append at ${offset} answered offset ${next}, expected ${offset + chunk.length}`);
      offset = next;
    }
  } finally {
    stop();
  }
  const elapsedMs = msSince(start);
  return {
    bytes: offset,
    chunkBytes: CHUNK_BYTES,
    chunks,
    elapsedMs,
    mbPerSecond: mbPerSecond(offset, elapsedMs),
    appendP50Ms: percentile(times, 0.5),
    appendP99Ms: percentile(times, 0.99),
  };
}
