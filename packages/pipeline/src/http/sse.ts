import type { FastifyReply, FastifyRequest } from 'fastify';
import type { EventHub } from '../domain/events.js';
import { errors } from '../errors.js';

/**
 * How long a follower sleeps without a wake before it looks again anyway. The hub wakes it at once in
 * the normal case; this only bounds the delay if a change was made without a publish.
 */
export const FALLBACK_POLL_MS = 5000;

/** True when the client asked for server-sent events. */
export function wantsEventStream(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').split(',').some((part) => part.trim().toLowerCase().startsWith('text/event-stream'));
}

/**
 * The position a stream resumes after: `Last-Event-ID` (set by an EventSource on reconnect) first, else
 * the query parameter a first connection may give, else 0. A decimal integer, or 400.
 */
export function readResumePosition(request: FastifyRequest, queryValue: unknown, name: string): number {
  const header = request.headers['last-event-id'];
  const text = typeof header === 'string' && header !== '' ? header : queryValue;
  if (text === undefined) return 0;
  if (typeof text !== 'string' || !/^\d{1,15}$/.test(text)) {
    throw errors.invalidRequest(`${typeof header === 'string' && header !== '' ? 'Last-Event-ID' : name} must be a non-negative integer; reconnect without it to start from the beginning`);
  }
  return Number(text);
}

/** One open server-sent event stream. */
export interface EventStream {
  /** Aborted when the client went away or the server is shutting down. */
  signal: AbortSignal;
  /**
   * Writes one whole event (or comment). Resolves once the socket accepted it, or, when its buffer is
   * full, once it drained (or the stream closed): a slow reader holds the writer back instead of making
   * the service buffer what it has not read.
   */
  send(text: string): Promise<void>;
  /** Ends the response (idempotent). */
  end(): void;
}

/**
 * Takes the response over from Fastify and starts an event stream: the headers a proxy needs to pass it
 * through unbuffered, and a comment line every `keepAliveMs` while the socket is idle.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply, options: { keepAliveMs: number; shutdown: AbortSignal }): EventStream {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-accel-buffering': 'no',
    'x-content-type-options': 'nosniff',
  });
  // The first line flushes the headers, so the client knows at once that the stream is open.
  raw.write(': open\n\n');
  const controller = new AbortController();
  const close = (): void => controller.abort();
  raw.once('close', close);
  options.shutdown.addEventListener('abort', close, { once: true });
  const keepAlive = setInterval(() => {
    // A stream with unread bytes in flight is not idle; the comment would only add to the backlog.
    if (!raw.writableNeedDrain) raw.write(': keep-alive\n\n');
  }, options.keepAliveMs);
  controller.signal.addEventListener('abort', () => {
    clearInterval(keepAlive);
    options.shutdown.removeEventListener('abort', close);
    if (!raw.writableEnded) raw.end();
  });
  request.log.debug({ url: request.url }, 'event stream opened');
  return {
    signal: controller.signal,
    async send(text) {
      if (controller.signal.aborted) return;
      if (raw.write(text)) return;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          raw.off('drain', done);
          controller.signal.removeEventListener('abort', done);
          resolve();
        };
        raw.on('drain', done);
        controller.signal.addEventListener('abort', done);
      });
    },
    end: close,
  };
}

/**
 * Wakes a follower when any of `keys` is published, after `fallbackMs` without one, or when `signal`
 * aborts. A publish that arrives while the follower is busy is remembered, so none is missed between
 * reading the store and going back to sleep.
 */
export class Waker {
  private pending = true;
  private wake: (() => void) | null = null;
  private readonly unsubscribe: (() => void)[];

  constructor(hub: EventHub, keys: string[], private readonly signal: AbortSignal) {
    this.unsubscribe = keys.map((key) => hub.subscribe(key, () => this.poke()));
    signal.addEventListener('abort', () => this.poke(), { once: true });
  }

  private poke(): void {
    this.pending = true;
    this.wake?.();
  }

  /** Resolves at once if poked since the last call; the first call always resolves at once. */
  async wait(fallbackMs: number): Promise<void> {
    if (!this.pending && !this.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, fallbackMs);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    this.pending = false;
  }

  close(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }
}
