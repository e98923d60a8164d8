// Test support: a project of the test's own on a real git repository (made with the git CLI), registered
// with the real `conveyor pipeline admin` command, and jobs started through the management API with a
// signed-in browser context's cookie, as the page itself would.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitSync } from '@conveyor/kit/testing';
import type { APIRequestContext } from 'playwright-core';
import type { Product } from './product.js';

export interface TaskSummary {
  id: string;
  name: string;
  state: string;
  attempt: number;
}

export interface JobSummary {
  id: string;
  number: number;
  state: string;
  tasks: TaskSummary[];
}

export interface TestProject {
  /** The repository's directory. */
  repo: string;
  /** Removes the repository (the product's own data goes with the product). */
  remove(): void;
}

/** A repository on `main` holding `.pipeline.yml`, registered as project `name` (system realm, owned by the signed-in user). */
export async function createProject(product: Product, request: APIRequestContext, name: string, pipelineFile: string): Promise<TestProject> {
  const directory = mkdtempSync(join(tmpdir(), `conveyor-${name}-`));
  gitSync(directory, ['init', '-q']);
  gitSync(directory, ['symbolic-ref', 'HEAD', 'refs/heads/main']);
  writeFileSync(join(directory, '.pipeline.yml'), pipelineFile);
  gitSync(directory, ['add', '--all']);
  gitSync(directory, ['commit', '-q', '-m', `${name}: the pipeline`]);
  const session = (await (await request.get(`${product.url}/api/v1/session`)).json()) as { user: { id: string } };
  await product.cli(['pipeline', 'admin', 'project', 'create', '--name', name, '--repo', directory, '--owner', session.user.id, '--realm', 'system']);
  return { repo: directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** Starts a job on `main` as the signed-in user (POST .../jobs/start, with the Origin the CSRF check wants). */
export async function startJob(product: Product, request: APIRequestContext, project: string): Promise<JobSummary> {
  const response = await request.post(`${product.url}/api/v1/projects/${project}/jobs/start`, { data: { ref: 'main' }, headers: { origin: product.url } });
  if (!response.ok()) throw new Error(`starting a job of ${project} answered ${response.status()}: ${await response.text()}`);
  const body = (await response.json()) as { job_id: string };
  return readJob(product, request, project, body.job_id);
}

export async function readJob(product: Product, request: APIRequestContext, project: string, job: string): Promise<JobSummary> {
  const response = await request.get(`${product.url}/api/v1/projects/${project}/jobs/${job}`);
  if (!response.ok()) throw new Error(`reading job ${job} of ${project} answered ${response.status()}`);
  const body = (await response.json()) as { job: { id: string; number: number; state: string }; tasks: TaskSummary[] };
  return { ...body.job, tasks: body.tasks };
}

/**
 * Reads the job until `done` holds for it (the API's view, for setting up what the page is then shown);
 * the page's own waits are on what a person sees.
 */
export async function waitForJob(product: Product, request: APIRequestContext, project: string, job: string, done: (job: JobSummary) => boolean, timeoutMs = 60_000): Promise<JobSummary> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await readJob(product, request, project, job);
    if (done(read)) return read;
    if (Date.now() > deadline) throw new Error(`job ${job} of ${project} did not get there within ${timeoutMs} ms: ${JSON.stringify(read)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export function taskNamed(job: JobSummary, name: string): TaskSummary {
  const task = job.tasks.find((candidate) => candidate.name === name);
  if (task === undefined) throw new Error(`job ${job.number} has no task ${name}: ${job.tasks.map((t) => t.name).join(', ')}`);
  return task;
}
