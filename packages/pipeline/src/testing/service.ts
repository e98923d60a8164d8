// Test support: the real app on a real port, a real SQLite file and real git repositories in a temp dir.
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { createFsBlobStore } from '../blobs/fs/index.js';
import { createManualClock, type ManualClock } from '@conveyor/kit';
import { readPipelineConfig, type PipelineConfig } from '../config.js';
import type { PipelineDeps } from '../domain/deps.js';
import { createProject, createWorker } from '../domain/projects.js';
import { EventHub } from '../domain/events.js';
import { WorkSignal } from '../domain/work-signal.js';
import { commitFiles, initRepository, makeTempDir } from '../git/test-repos.js';
import { createRepositories } from '../git/repositories.js';
import type { SessionResolver } from '../http/credentials.js';
import { openSqliteStore } from '../store/sqlite/index.js';
import type { Project, Worker } from '../store/types.js';

/** Where the test clock starts: any fixed time, so that runs are repeatable. */
const TEST_CLOCK_START = 1_800_000_000_000;

export function sign(body: string | Buffer, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export interface TestProject {
  project: Project;
  repo: string;
  secret: string;
  /** Commits the files to the project's repository and returns the commit id. */
  commit(files: Record<string, string | Buffer>): Promise<string>;
}

export interface CallOptions {
  body?: string | Buffer | object;
  headers?: Record<string, string>;
  token?: string;
  /** Sign the (serialised) body with this secret in X-Hub-Signature-256. */
  secret?: string;
  signal?: AbortSignal;
}

export interface TestService {
  url: string;
  dir: string;
  deps: PipelineDeps;
  clock: ManualClock;
  app: FastifyInstance;
  addProject(options?: { name?: string; visibility?: 'public' | 'private'; owner?: string; realm?: string; pipeline?: string }): Promise<TestProject>;
  addWorker(owner?: string | null, name?: string): Promise<{ worker: Worker; token: string }>;
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** POST /jobs signed, for the common case; returns the parsed body and status. */
  startJob(project: TestProject, sha: string, extra?: object, headers?: Record<string, string>): Promise<{ status: number; body: { job_id: string; tasks: number; error?: string } }>;
  stop(): Promise<void>;
  /** Stops the server but keeps its files, as a crash or restart would. */
  halt(): Promise<void>;
}

let serial = 0;

export async function startTestService(
  options: {
    config?: Partial<PipelineConfig>;
    sessions?: SessionResolver;
    clock?: ManualClock;
    dir?: string;
    /** Receives the service's log lines (give `config.logLevel` too: tests default to silent). */
    logStream?: { write(line: string): void };
  } = {},
): Promise<TestService> {
  // A given dir is reused as it is (a restart); a fresh one is made and removed on stop.
  const temp = options.dir === undefined ? await makeTempDir('pipeline-test') : { path: options.dir, remove: async () => undefined };
  const config: PipelineConfig = {
    ...readPipelineConfig({
      PIPELINE_DATABASE_PATH: join(temp.path, 'pipeline.db'),
      PIPELINE_DATA_PATH: join(temp.path, 'data'),
      PIPELINE_LOG_LEVEL: 'silent',
    }),
    ...options.config,
  };
  const clock = options.clock ?? createManualClock(TEST_CLOCK_START);
  const deps: PipelineDeps = {
    config,
    store: openSqliteStore(config.databasePath),
    blobs: createFsBlobStore(config.dataPath),
    repos: createRepositories({ dataPath: config.dataPath, fetchTimeoutMs: config.gitTimeoutMs }),
    clock,
    work: new WorkSignal(),
    events: new EventHub(),
  };
  const shutdown = new AbortController();
  const app = await buildApp(deps, { sessions: options.sessions, shutdown: shutdown.signal, logStream: options.logStream });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });

  async function call(method: string, path: string, call: CallOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...call.headers };
    let body: string | Buffer | undefined;
    if (call.body !== undefined) {
      body = typeof call.body === 'string' || Buffer.isBuffer(call.body) ? call.body : JSON.stringify(call.body);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    if (call.secret !== undefined) headers['x-hub-signature-256'] = sign(body ?? '', call.secret);
    if (call.token !== undefined) headers.authorization = `Bearer ${call.token}`;
    return fetch(`${url}${path}`, { method, headers, body, signal: call.signal });
  }

  const service: TestService = {
    url,
    dir: temp.path,
    deps,
    clock,
    app,
    async addProject(projectOptions = {}) {
      serial += 1;
      const repo = await initRepository(join(temp.path, `repo-${serial}`));
      const project = await createProject(deps, {
        name: projectOptions.name ?? `project-${serial}`,
        repo,
        visibility: projectOptions.visibility ?? 'private',
        ownerUserId: projectOptions.owner ?? null,
        realm: projectOptions.realm,
      });
      if (projectOptions.pipeline !== undefined) await commitFiles(repo, { '.pipeline.yml': projectOptions.pipeline });
      return { project, repo, secret: project.triggerSecret, commit: (files) => commitFiles(repo, files) };
    },
    addWorker(owner = null, name) {
      serial += 1;
      return createWorker(deps, { name: name ?? `worker-${serial}`, ownerUserId: owner });
    },
    call,
    async startJob(project, sha, extra = {}, headers = {}) {
      const response = await call('POST', `/api/v1/projects/${project.project.name}/jobs`, {
        body: { sha, ref: 'refs/heads/main', ...extra },
        secret: project.secret,
        headers,
      });
      return { status: response.status, body: (await response.json()) as { job_id: string; tasks: number } };
    },
    async stop() {
      await service.halt();
      await temp.remove();
    },
    async halt() {
      shutdown.abort();
      await app.close();
      await deps.repos.close();
      await deps.store.close();
    },
  };
  return service;
}

/** The standard claim body. */
export function claimBody(overrides: { arches?: string[]; features?: string[]; name?: string } = {}) {
  return { arches: ['amd64'], features: [], name: 'test-worker', ...overrides };
}
