import type { Agent } from 'node:http';
import type { ClaimedTaskRef, PipelineApi } from './api.js';
import { every, say } from './progress.js';
import { msSince } from './stats.js';

export interface ClaimFigures {
  concurrency: number;
  claims: number;
  elapsedMs: number;
  claimsPerSecond: number;
  /** Distinct task ids handed out; equals `claims` unless a task was handed out twice. */
  distinctTasks: number;
}

/** Runs `concurrency` loops that claim until the service answers 204; every task id must come out once. */
export async function claimUntilIdle(
  api: PipelineApi,
  agent: Agent,
  concurrency: number,
  label: string,
): Promise<{ figures: ClaimFigures; tasks: ClaimedTaskRef[] }> {
  const tasks: ClaimedTaskRef[] = [];
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const start = process.hrtime.bigint();
  const stop = every(2000, () => say(`  ${label}: ${tasks.length} claimed, ${(tasks.length / (msSince(start) / 1000)).toFixed(0)}/s so far`));
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (;;) {
          const task = await api.claim(agent);
          if (task === null) return;
          if (seen.has(task.id)) duplicates.push(task.id);
          seen.add(task.id);
          tasks.push(task);
        }
      }),
    );
  } finally {
    stop();
  }
  const elapsedMs = msSince(start);
  if (duplicates.length > 0) {
    throw new Error(`DOUBLE CLAIM: ${duplicates.length} task id(s) were handed out more than once, e.g. ${duplicates.slice(0, 5).join(', ')}`);
  }
  return {
    figures: {
      concurrency,
      claims: tasks.length,
      elapsedMs,
      claimsPerSecond: tasks.length / (elapsedMs / 1000),
      distinctTasks: seen.size,
    },
    tasks,
  };
}

export interface CompletionFigures {
  completed: number;
  /** Completions answered 404: the task was no longer held (its lease lapsed before completion). */
  notHeld: number;
  elapsedMs: number;
  completionsPerSecond: number;
}

/** Reports success for every claimed task, `concurrency` at a time. Not a target, but it empties the queue. */
export async function completeAll(api: PipelineApi, agent: Agent, tasks: readonly ClaimedTaskRef[], concurrency: number): Promise<CompletionFigures> {
  let next = 0;
  let completed = 0;
  let notHeld = 0;
  const start = process.hrtime.bigint();
  const stop = every(2000, () => say(`  completing: ${completed + notHeld} of ${tasks.length}`));
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < tasks.length) {
          const task = tasks[next] as ClaimedTaskRef;
          next += 1;
          if ((await api.complete(agent, task)) === 404) notHeld += 1;
          else completed += 1;
        }
      }),
    );
  } finally {
    stop();
  }
  const elapsedMs = msSince(start);
  return { completed, notHeld, elapsedMs, completionsPerSecond: (completed + notHeld) / (elapsedMs / 1000) };
}
