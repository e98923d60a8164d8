// A task whose log is 64 MiB, made by a real task on the real worker: shared by the browser test and
// the benchmark (src/bench/log-page.ts).
import type { APIRequestContext } from 'playwright-core';
import type { Product } from './product.js';
import { createProject, startJob, taskNamed, waitForJob } from './projects.js';

export const BIG_LOG_LINE = 'some fairly long log line with words and numbers 0123456789';
export const BIG_LOG_BYTES = 64 * 1024 * 1024;
export const BIG_LOG_FIRST = 'first line of the big log';
export const BIG_LOG_LAST = 'last line of the big log';
/** The service's log limit must leave room for the 64 MiB and the lines around it: pass to startProduct({env}). */
export const BIG_LOG_ENV = { PIPELINE_MAX_LOG_BYTES: String(80 * 1024 * 1024) };

export function bigLogPipeline(): string {
  return `tasks:
  big:
    script:
      - echo '${BIG_LOG_FIRST}'
      - yes '${BIG_LOG_LINE}' | head -c ${BIG_LOG_BYTES}
      - echo
      - echo '${BIG_LOG_LAST}'
`;
}

export interface BigLogTask {
  project: string;
  job: string;
  task: string;
  logBytes: number;
}

/** Creates project `name` whose one task writes a 64 MiB log, runs it, and waits for its success. */
export async function createBigLogTask(product: Product, request: APIRequestContext, name = 'big-log'): Promise<BigLogTask> {
  await createProject(product, request, name, bigLogPipeline());
  const started = await startJob(product, request, name);
  const job = await waitForJob(product, request, name, String(started.number), (read) => read.state !== 'running', 120_000);
  const task = taskNamed(job, 'big');
  if (task.state !== 'success') throw new Error(`the big-log task ended ${task.state}`);
  const read = (await (await request.get(`${product.url}/api/v1/projects/${name}/tasks/${task.id}`)).json()) as { task: { log_size: number } };
  return { project: name, job: String(job.number), task: task.id, logBytes: read.task.log_size };
}
