import { createHmac } from 'node:crypto';
import type { Agent } from 'node:http';
import type { Readable } from 'node:stream';
import { call, expectStatus, jsonOf } from './http-client.js';

/** The parts of a claimed task the benchmark uses. */
export interface ClaimedTaskRef {
  id: string;
  heartbeatInterval: number;
  endpoints: { log: string; artifact: string; heartbeat: string; done: string };
}

const CLAIM_BODY = JSON.stringify({ arches: ['amd64'], features: [], name: 'bench' });

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what}: expected an object, got ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

function text(value: Record<string, unknown>, key: string, what: string): string {
  const field = value[key];
  if (typeof field !== 'string') throw new Error(`${what}: '${key}' is not a string`);
  return field;
}

/** The service's HTTP API as a worker and a trigger caller use it. */
export class PipelineApi {
  constructor(
    readonly baseUrl: string,
    private readonly project: { name: string; triggerSecret: string },
    private readonly workerToken: string,
  ) {}

  get projectName(): string {
    return this.project.name;
  }

  private get workerHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.workerToken}` };
  }

  /** `POST /projects/:project/jobs`, signed over the exact body bytes. */
  async createJob(agent: Agent, sha: string): Promise<{ jobId: string; tasks: number }> {
    const body = JSON.stringify({ sha, ref: 'refs/heads/main' });
    const signature = createHmac('sha256', this.project.triggerSecret).update(body).digest('hex');
    const response = await call({
      method: 'POST',
      url: `${this.baseUrl}/api/v1/projects/${encodeURIComponent(this.project.name)}/jobs`,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${signature}` },
      body,
      agent,
    });
    expectStatus(response, 200, 'job creation');
    const answer = record(jsonOf(response, 'job creation'), 'job creation');
    if (typeof answer.tasks !== 'number') throw new Error(`job creation: no task count in ${JSON.stringify(answer)}`);
    return { jobId: text(answer, 'job_id', 'job creation'), tasks: answer.tasks };
  }

  /** The headers of a signed read: the trigger secret's signature over the empty body. */
  get readHeaders(): Record<string, string> {
    return { 'x-hub-signature-256': `sha256=${createHmac('sha256', this.project.triggerSecret).update('').digest('hex')}` };
  }

  /** The job a task belongs to, from the project-scoped task read. */
  async jobOfTask(agent: Agent, taskId: string): Promise<string> {
    const response = await call({
      method: 'GET',
      url: `${this.baseUrl}/api/v1/projects/${encodeURIComponent(this.project.name)}/tasks/${encodeURIComponent(taskId)}`,
      headers: this.readHeaders,
      agent,
    });
    expectStatus(response, 200, 'task read');
    return text(record(record(jsonOf(response, 'task read'), 'task read').task, 'task read task'), 'job_id', 'task read');
  }

  /** `POST /tasks/claim` without waiting: a task, or null on 204. */
  async claim(agent: Agent): Promise<ClaimedTaskRef | null> {
    const response = await call({
      method: 'POST',
      url: `${this.baseUrl}/api/v1/tasks/claim`,
      headers: { ...this.workerHeaders, 'content-type': 'application/json' },
      body: CLAIM_BODY,
      agent,
    });
    if (response.status === 204) return null;
    expectStatus(response, 200, 'claim');
    const task = record(record(jsonOf(response, 'claim'), 'claim').task, 'claim task');
    const endpoints = record(task.endpoints, 'claim endpoints');
    return {
      id: text(task, 'id', 'claim'),
      heartbeatInterval: typeof task.heartbeat_interval === 'number' ? task.heartbeat_interval : 10,
      endpoints: {
        log: text(endpoints, 'log', 'claim endpoints'),
        artifact: text(endpoints, 'artifact', 'claim endpoints'),
        heartbeat: text(endpoints, 'heartbeat', 'claim endpoints'),
        done: text(endpoints, 'done', 'claim endpoints'),
      },
    };
  }

  /** Appends a chunk at `offset`; returns the new log size. */
  async appendLog(agent: Agent, task: ClaimedTaskRef, offset: number, chunk: Buffer): Promise<number> {
    const response = await call({
      method: 'POST',
      url: task.endpoints.log,
      headers: { ...this.workerHeaders, 'content-type': 'application/octet-stream', 'x-log-offset': String(offset) },
      body: chunk,
      agent,
    });
    expectStatus(response, 200, 'log append');
    const answer = record(jsonOf(response, 'log append'), 'log append');
    if (typeof answer.offset !== 'number') throw new Error(`log append: no offset in ${JSON.stringify(answer)}`);
    return answer.offset;
  }

  /** Streams `body` (exactly `length` bytes) as an artifact; returns the stored size. */
  async uploadArtifact(agent: Agent, task: ClaimedTaskRef, path: string, length: number, body: Readable): Promise<number> {
    const response = await call({
      method: 'POST',
      url: task.endpoints.artifact,
      headers: { ...this.workerHeaders, 'content-type': 'application/octet-stream', 'content-length': length, 'x-artifact-path': path },
      body,
      agent,
    });
    expectStatus(response, 201, 'artifact upload');
    const answer = record(jsonOf(response, 'artifact upload'), 'artifact upload');
    if (typeof answer.size !== 'number') throw new Error(`artifact upload: no size in ${JSON.stringify(answer)}`);
    return answer.size;
  }

  async heartbeat(agent: Agent, task: ClaimedTaskRef): Promise<void> {
    const response = await call({ method: 'POST', url: task.endpoints.heartbeat, headers: this.workerHeaders, agent });
    expectStatus(response, 200, 'heartbeat');
  }

  /** Reports success; returns the HTTP status (404 once the task is no longer held). */
  async complete(agent: Agent, task: ClaimedTaskRef): Promise<number> {
    const response = await call({
      method: 'POST',
      url: task.endpoints.done,
      headers: { ...this.workerHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ success: true, exit_code: 0, error: null }),
      agent,
    });
    if (response.status !== 404) expectStatus(response, 200, 'complete');
    return response.status;
  }
}
