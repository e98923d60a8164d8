import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { followJobEvents, followLog, followProjectEvents, type EventFeed, type LogFollow } from '../../domain/follow.js';
import type { JobRef, TaskRef } from '../../domain/reads.js';
import { errors } from '../../errors.js';
import type { JobEvent, JobStateEvent } from '../../store/types.js';
import type { HttpContext } from '../context.js';
import { readCredentials } from '../credentials.js';
import { FALLBACK_POLL_MS, openEventStream, readResumePosition, Waker, type EventStream } from '../sse.js';

/** Log bytes per event: a large backlog goes out in events of this size, each written only once the socket drained. */
export const LOG_EVENT_BYTES = 64 * 1024;
/** Events read from the store per query. */
const EVENT_PAGE = 200;

async function readAll(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of stream) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** Runs a follower until it ends or the stream closes; a failure closes the stream (the client resumes). */
async function runFollower(request: FastifyRequest, stream: EventStream, waker: Waker, body: () => Promise<boolean>): Promise<void> {
  try {
    while (!stream.signal.aborted) {
      await waker.wait(FALLBACK_POLL_MS);
      if (stream.signal.aborted || (await body())) break;
    }
  } catch (error) {
    request.log.error({ err: error, url: request.url }, 'event stream failed');
  } finally {
    waker.close();
    stream.end();
  }
}

/**
 * `Accept: text/event-stream` on the log read: the attempt's bytes from the stored log, base64 in each
 * event's data, `id` the byte offset after them; `end` once the attempt is final and every byte is out.
 */
export async function streamLog(request: FastifyRequest<{ Params: TaskRef; Querystring: { offset?: string } }>, reply: FastifyReply, context: HttpContext, attempt: number | null): Promise<void> {
  const follow = await followLog(context.deps, readCredentials(request, context.sessions), request.params, attempt);
  let offset = readResumePosition(request, request.query.offset, 'offset');
  const initial = await follow.status();
  if (offset > initial.size) throw errors.invalidRequest(`offset ${offset} is past the ${initial.size} bytes of attempt ${follow.attempt}'s log; reconnect from an id this stream sent`);
  const stream = openEventStream(request, reply, { keepAliveMs: context.deps.config.sseKeepAliveMs, shutdown: context.shutdown });
  await stream.send(`event: attempt\ndata: ${JSON.stringify({ attempt: follow.attempt })}\n\n`);
  const waker = new Waker(context.deps.events, follow.keys, stream.signal);
  await runFollower(request, stream, waker, async () => {
    const status = await follow.status();
    offset = await sendLogBytes(follow, stream, offset, status.size);
    if (!status.final || offset < status.size) return false;
    await stream.send(`id: ${offset}\nevent: end\ndata: ${JSON.stringify({ attempt: follow.attempt, size: offset })}\n\n`);
    return true;
  });
}

/** Sends [offset, size) in events of at most LOG_EVENT_BYTES; returns the offset reached. */
async function sendLogBytes(follow: LogFollow, stream: EventStream, from: number, size: number): Promise<number> {
  let offset = from;
  while (offset < size && !stream.signal.aborted) {
    const bytes = await readAll(follow.read({ start: offset, end: Math.min(size, offset + LOG_EVENT_BYTES) - 1 }));
    // A blob shorter than its recorded size cannot be sent from; the stream closes and the client retries.
    if (bytes.length === 0) throw new Error(`log blob ended at ${offset} of ${size} recorded bytes`);
    offset += bytes.length;
    await stream.send(`id: ${offset}\ndata: ${bytes.toString('base64')}\n\n`);
  }
  return offset;
}

function presentTaskEvent(event: Extract<JobEvent, { kind: 'task' }>) {
  return {
    id: event.taskId,
    job_id: event.jobId,
    name: event.name,
    state: event.state,
    attempt: event.attempt,
    exit_code: event.exitCode,
    started_at: event.startedAt,
    finished_at: event.finishedAt,
  };
}

function presentJobEvent(event: JobStateEvent) {
  const { job } = event;
  return {
    id: job.id,
    number: job.number,
    state: event.state,
    ref: job.ref,
    head_sha: job.headSha,
    trigger: job.trigger,
    actor: job.actor,
    created_at: job.createdAt,
    finished_at: event.finishedAt,
  };
}

function formatEvent(event: JobEvent): string {
  const data = event.kind === 'job' ? presentJobEvent(event) : presentTaskEvent(event);
  return `id: ${event.seq}\nevent: ${event.kind}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Streams a feed's events after the resume position, then each new one as it is recorded; it never ends by itself. */
async function streamFeed(request: FastifyRequest<{ Querystring: { after?: string } }>, reply: FastifyReply, context: HttpContext, feed: EventFeed<JobEvent>, after: number): Promise<void> {
  const stream = openEventStream(request, reply, { keepAliveMs: context.deps.config.sseKeepAliveMs, shutdown: context.shutdown });
  const waker = new Waker(context.deps.events, feed.keys, stream.signal);
  let position = after;
  await runFollower(request, stream, waker, async () => {
    for (;;) {
      const page = await feed.list(position, EVENT_PAGE);
      for (const event of page) {
        await stream.send(formatEvent(event));
        position = event.seq;
      }
      if (page.length < EVENT_PAGE || stream.signal.aborted) return false;
    }
  });
}

export function registerLiveRoutes(app: FastifyInstance, context: HttpContext): void {
  const { deps, sessions } = context;

  app.get<{ Params: JobRef; Querystring: { after?: string } }>('/api/v1/projects/:project/jobs/:job/events', async (request, reply) => {
    // Access first: a bad position on a project the caller may not see is still 404.
    const feed = await followJobEvents(deps, readCredentials(request, sessions), request.params);
    const after = readResumePosition(request, request.query.after, 'after');
    await streamFeed(request, reply, context, feed, after);
  });

  app.get<{ Params: { project: string }; Querystring: { after?: string } }>('/api/v1/projects/:project/events', async (request, reply) => {
    // Access first: a bad position on a project the caller may not see is still 404.
    const feed = await followProjectEvents(deps, readCredentials(request, sessions), request.params.project);
    const after = readResumePosition(request, request.query.after, 'after');
    await streamFeed(request, reply, context, feed, after);
  });
}
