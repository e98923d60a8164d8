import assert from 'node:assert/strict';
import http from 'node:http';
import { after, afterEach, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClaimedTask } from '@conveyor/protocol';
import type { BlobStore } from '../../blobs/types.js';
import { logKey } from '../../domain/logs.js';
import { readSse, type SseEvent, type SseItem } from '../../testing/sse-client.js';
import { claimBody, sign, startTestService, type TestProject, type TestService } from '../../testing/service.js';

const PIPELINE = 'tasks:\n  build:\n    image: x\n    script: [make]\n  test:\n    image: x\n    script: [make test]\n    needs: [build]\n';
const octets = { 'content-type': 'application/octet-stream' };
const sse = { accept: 'text/event-stream' };

/** Reads items until `stop` says so (or the time is up: the test then fails on what it got); the connection is then closed. */
async function collect(response: Response & { abort?: () => void }, stop: (items: SseItem[]) => boolean, timeoutMs = 5000): Promise<SseItem[]> {
  const items: SseItem[] = [];
  const timer = setTimeout(() => response.abort?.(), timeoutMs);
  try {
    for await (const item of readSse(response)) {
      items.push(item);
      if (stop(items)) break;
    }
  } catch (error) {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  } finally {
    clearTimeout(timer);
    response.abort?.();
  }
  return items;
}

const eventsOf = (items: SseItem[]): SseEvent[] => items.flatMap((item) => (item.event === undefined ? [] : [item.event]));

describe('live events', () => {
  let service: TestService;
  let project: TestProject;
  let publicProject: TestProject;
  let token: string;
  /** Every range the service read from the blob store, for the back-pressure case. */
  const reads: { key: string; start: number; end: number }[] = [];

  before(async () => {
    service = await startTestService({ config: { sseKeepAliveMs: 100 } });
    const blobs: BlobStore = service.deps.blobs;
    const read = blobs.read.bind(blobs);
    blobs.read = (key, range) => {
      if (range !== undefined) reads.push({ key, ...range });
      return read(key, range);
    };
    project = await service.addProject({ name: 'private-live', pipeline: PIPELINE });
    publicProject = await service.addProject({ name: 'public-live', visibility: 'public', pipeline: PIPELINE });
    token = (await service.addWorker()).token;
  });
  afterEach(() => drain());
  after(() => service.stop());

  async function startJob(target: TestProject): Promise<string> {
    const started = await service.startJob(target, await target.commit({ [`f${Math.random()}`]: 'x' }));
    assert.equal(started.status, 200);
    return started.body.job_id;
  }
  /** Runs every task left waiting to success, so the next test's claim gets its own job's task. */
  async function drain(): Promise<void> {
    for (;;) {
      const response = await service.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token });
      if (response.status === 204) return;
      await complete(((await response.json()) as { task: ClaimedTask }).task.id, true);
    }
  }
  async function claim(): Promise<ClaimedTask> {
    const response = await service.call('POST', '/api/v1/tasks/claim', { body: claimBody(), token });
    return ((await response.json()) as { task: ClaimedTask }).task;
  }
  async function append(taskId: string, offset: number, text: string | Buffer): Promise<void> {
    const response = await service.call('POST', `/api/v1/tasks/${taskId}/log`, { body: Buffer.from(text), token, headers: { ...octets, 'x-log-offset': String(offset) } });
    assert.equal(response.status, 200);
  }
  async function complete(taskId: string, success: boolean): Promise<void> {
    const response = await service.call('POST', `/api/v1/tasks/${taskId}/complete`, { body: { success, exit_code: success ? 0 : 1, error: null }, token });
    assert.equal(response.status, 200);
  }
  /** A GET whose response can be aborted by collect. */
  async function open(path: string, headers: Record<string, string>): Promise<Response & { abort: () => void }> {
    const controller = new AbortController();
    const response = await service.call('GET', path, { headers, signal: controller.signal });
    return Object.assign(response, { abort: () => controller.abort() });
  }
  const signed = (target: TestProject, extra: Record<string, string> = {}) => ({ ...sse, 'x-hub-signature-256': sign('', target.secret), ...extra });

  it('sends `end` only after the last byte, once the attempt is final; a reconnect at the end gets `end` at once', async () => {
    const jobId = await startJob(project);
    const task = await claim();
    const path = `/api/v1/projects/private-live/jobs/${jobId}/tasks/${task.id}/log`;
    const response = await open(path, signed(project));
    assert.equal(response.status, 200);
    const reader = collect(response, (items) => eventsOf(items).some((event) => event.event === 'end'));
    await append(task.id, 0, 'one\n');
    await sleep(150);
    await append(task.id, 4, 'two\n');
    await sleep(150);
    await complete(task.id, true);
    const events = eventsOf(await reader);
    assert.deepEqual(
      events.map((event) => [event.event, event.id, event.event === 'message' ? Buffer.from(event.data, 'base64').toString() : event.data]),
      [
        ['attempt', null, '{"attempt":1}'],
        ['message', '4', 'one\n'],
        ['message', '8', 'two\n'],
        ['end', '8', '{"attempt":1,"size":8}'],
      ],
    );
    const again = await open(path, signed(project, { 'last-event-id': '8' }));
    assert.deepEqual(eventsOf(await collect(again, () => false)).map((event) => event.event), ['attempt', 'end']);
    const fromOffset = await open(`${path}?offset=4`, signed(project));
    const tail = eventsOf(await collect(fromOffset, () => false)).filter((event) => event.event === 'message');
    assert.deepEqual(tail.map((event) => Buffer.from(event.data, 'base64').toString()), ['two\n']);
    await sleep(50);
    assert.equal(service.deps.events.size, 0, 'closed streams let go of their subscriptions');
  });

  it('refuses a bad or impossible resume position with 400 and a way on', async () => {
    const jobId = await startJob(project);
    const task = await claim();
    await append(task.id, 0, 'abc');
    const path = `/api/v1/projects/private-live/jobs/${jobId}/tasks/${task.id}/log`;
    for (const [headers, query] of [[{ 'last-event-id': 'x1' }, ''], [{}, '?offset=-1'], [{ 'last-event-id': '4' }, '']] as const) {
      const response = await service.call('GET', `${path}${query}`, { headers: signed(project, headers) });
      assert.equal(response.status, 400);
      const body = (await response.json()) as { code: string; error: string };
      assert.equal(body.code, 'invalid_request');
      assert.match(body.error, /reconnect/);
    }
    const events = await service.call('GET', `/api/v1/projects/private-live/jobs/${jobId}/events`, { headers: signed(project, { 'last-event-id': 'abc' }) });
    assert.equal(events.status, 400);
  });

  it("streams a job's events; a reconnect with Last-Event-ID loses and repeats nothing", async () => {
    const jobId = await startJob(project);
    const path = `/api/v1/projects/private-live/jobs/${jobId}/events`;
    const first = await open(path, signed(project));
    assert.equal(first.status, 200);
    // The history so far: the job, then its two tasks.
    const seen = eventsOf(await collect(first, (items) => eventsOf(items).length === 3));
    const build = await claim();
    await complete(build.id, true);
    const test = await claim();
    await complete(test.id, false);
    const resumed = await open(path, signed(project, { 'last-event-id': seen.at(-1)?.id ?? '' }));
    seen.push(...eventsOf(await collect(resumed, (items) => eventsOf(items).some((event) => event.event === 'job' && JSON.parse(event.data).state !== 'running'))));
    const described = seen.map((event) => {
      const data = JSON.parse(event.data) as { name?: string; state: string; attempt?: number };
      return event.event === 'job' ? `job ${data.state}` : `${data.name} ${data.state} ${data.attempt}`;
    });
    assert.deepEqual(described, [
      'job running', 'build waiting 0', 'test blocked 0', 'build running 1', 'build success 1', 'test waiting 0', 'test running 1', 'test failure 1', 'job failure',
    ]);
    const ids = seen.map((event) => Number(event.id));
    assert.deepEqual(ids, [...new Set(ids)].sort((a, b) => a - b), 'ids increase, none repeated');
    const failed = JSON.parse(seen[7]?.data ?? '{}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(failed).sort(), ['attempt', 'exit_code', 'finished_at', 'id', 'job_id', 'name', 'started_at', 'state']);
    assert.deepEqual([failed.id, failed.exit_code], [test.id, 1]);
  });

  it("streams a project's new jobs and their outcomes", async () => {
    const path = '/api/v1/projects/public-live/events';
    const response = await open(path, sse);
    assert.equal(response.status, 200);
    const reader = collect(response, (items) => eventsOf(items).length === 2);
    const firstJob = await startJob(publicProject);
    const secondJob = await startJob(publicProject);
    const events = eventsOf(await reader).map((event) => JSON.parse(event.data) as { id: string; number: number; state: string });
    assert.deepEqual(events.map((event) => [event.id, event.state]), [[firstJob, 'running'], [secondJob, 'running']]);
  });

  it("follows a project from its jobs list's events_after: what changes afterwards, none of the history", async () => {
    const earlier = await startJob(publicProject);
    const listed = await service.call('GET', '/api/v1/projects/public-live/jobs');
    assert.equal(listed.status, 200);
    const page = (await listed.json()) as { jobs: { id: string }[]; events_after: number };
    assert.ok(page.jobs.some((job) => job.id === earlier), 'the page shows the earlier job');
    assert.ok(Number.isInteger(page.events_after) && page.events_after > 0, `events_after ${page.events_after}`);
    const response = await open(`/api/v1/projects/public-live/events?after=${page.events_after}`, sse);
    const reader = collect(response, (items) => eventsOf(items).length >= 1);
    const later = await startJob(publicProject);
    const events = eventsOf(await reader).map((event) => ({ id: Number(event.id), job: (JSON.parse(event.data) as { id: string }).id }));
    assert.deepEqual(events.map((event) => event.job), [later], 'only the job started after the page was read');
    assert.ok((events[0]?.id ?? 0) > page.events_after);
  });

  it('answers 404 to an anonymous follower of a private project, and serves a public one', async () => {
    const jobId = await startJob(project);
    const task = await claim();
    for (const path of [
      `/api/v1/projects/private-live/jobs/${jobId}/tasks/${task.id}/log`,
      `/api/v1/projects/private-live/jobs/${jobId}/events`,
      '/api/v1/projects/private-live/events',
      '/api/v1/projects/private-live/events?after=zz',
    ]) {
      const response = await service.call('GET', path, { headers: sse });
      assert.equal(response.status, 404, path);
      assert.equal(((await response.json()) as { code: string }).code, 'not_found');
    }
    await drain();
    const publicJob = await startJob(publicProject);
    const response = await service.call('GET', `/api/v1/projects/public-live/jobs/${publicJob}/events`, { headers: sse });
    assert.equal(response.status, 200);
    await response.body?.cancel();
  });

  it('keeps an idle stream open with a comment line at the configured interval, with headers for proxies', async () => {
    const response = await open('/api/v1/projects/public-live/events?after=999999999', sse);
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    assert.equal(response.headers.get('x-accel-buffering'), 'no');
    const started = Date.now();
    const items = await collect(response, (all) => all.filter((item) => item.comment === 'keep-alive').length === 3);
    assert.ok(Date.now() - started >= 250, 'three comments at 100 ms take at least 250 ms');
    assert.equal(eventsOf(items).length, 0);
  });

  it('reads a large backlog in bounded chunks, only as fast as a slow client takes them', async () => {
    const jobId = await startJob(publicProject);
    const task = await claim();
    const size = 32 * 1024 * 1024;
    // Written straight to the blob store and recorded, as 512 appends of 64 KiB would.
    await service.deps.blobs.append(logKey(task.id, 1), 0, Buffer.alloc(size, 'x'));
    assert.ok(await service.deps.store.setLogSize(task.id, (await service.deps.store.getTask(task.id))?.workerId ?? '', 1, 0, size));
    await complete(task.id, true);
    const key = logKey(task.id, 1);
    const readSoFar = () => reads.filter((read) => read.key === key).reduce((sum, read) => sum + read.end - read.start + 1, 0);
    const url = new URL(`/api/v1/projects/public-live/jobs/${jobId}/tasks/${task.id}/log`, service.url);
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => http.get(url, { headers: sse }, resolve).on('error', reject));
    assert.equal(response.statusCode, 200);
    // The client reads nothing for a while: the service must stop reading the log soon, far short of its size.
    response.pause();
    await sleep(700);
    const stalled = readSoFar();
    await sleep(300);
    assert.equal(readSoFar(), stalled, 'the service waits for the client instead of reading on');
    assert.ok(stalled < size / 2, `read ${stalled} of ${size} bytes while the client did not read`);
    assert.ok(reads.filter((read) => read.key === key).every((read) => read.end - read.start + 1 <= 64 * 1024), 'every read is at most 64 KiB');
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.resume();
    await new Promise((resolve) => response.on('end', resolve));
    const decoded = [...text.matchAll(/^data: ([A-Za-z0-9+/=]+)$/gm)].reduce((sum, match) => sum + Buffer.from(match[1] as string, 'base64').length, 0);
    assert.equal(decoded, size);
    assert.equal(readSoFar(), size);
  });
});
