import type { Agent } from 'node:http';
import type { PipelineApi } from './api.js';
import { say } from './progress.js';
import { msSince, percentile } from './stats.js';

export interface JobCreationFigures {
  jobs: number;
  tasksPerJob: number;
  p50Ms: number;
  p95Ms: number;
  minMs: number;
  maxMs: number;
  meanMs: number;
}

/** Creates `count` jobs one after the other at `sha`, timing each call from request to full response. */
export async function timeJobCreations(api: PipelineApi, agent: Agent, sha: string, count: number, warmup: number): Promise<JobCreationFigures> {
  for (let index = 0; index < warmup; index += 1) await api.createJob(agent, sha);
  const times: number[] = [];
  let tasksPerJob = 0;
  for (let index = 0; index < count; index += 1) {
    const start = process.hrtime.bigint();
    const { tasks } = await api.createJob(agent, sha);
    times.push(msSince(start));
    tasksPerJob = tasks;
    if ((index + 1) % 10 === 0) say(`  ${index + 1} of ${count} jobs created, p50 so far ${percentile(times, 0.5).toFixed(1)} ms`);
  }
  return {
    jobs: count,
    tasksPerJob,
    p50Ms: percentile(times, 0.5),
    p95Ms: percentile(times, 0.95),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    meanMs: times.reduce((sum, time) => sum + time, 0) / times.length,
  };
}
