import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import {
  ARTIFACT_PATH_HEADER,
  ClaimResponseSchema,
  CompleteResponseSchema,
  HeartbeatResponseSchema,
  LOG_OFFSET_HEADER,
  LogAppendResponseSchema,
  LogGapResponseSchema,
  parseWith,
  type ClaimRequest,
  type ClaimedTask,
  type CompleteRequest,
  type CompleteResponse,
  type HeartbeatResponse,
} from '@conveyor/protocol';
import { ConnectionError, HttpTransport, type HttpAnswer, type RequestOptions } from './http.js';

/** The server answered, and the answer was an error. */
export class ServerError extends Error {
  constructor(readonly status: number, message: string) {
    super(`HTTP ${status}: ${message}`);
    this.name = 'ServerError';
  }
}

/**
 * The server handed over a task the worker cannot read (a protocol mismatch). The task is held
 * all the same, so its completion URL, when there is one, lets the worker fail it visibly.
 */
export class UnreadableTaskError extends Error {
  constructor(message: string, readonly doneUrl: string | null) {
    super(message);
    this.name = 'UnreadableTaskError';
  }
}

/** True when trying the same request again later may succeed (the server was away or overloaded). */
export function isRetryable(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  if (error instanceof ServerError) return error.status >= 500 || error.status === 408 || error.status === 429;
  return false;
}

export type LogAppendResult = { kind: 'appended'; offset: number } | { kind: 'gap'; expectedOffset: number } | { kind: 'too-large' };

export interface ClientOptions {
  /** Base URL of the pipeline service: the only address the worker is given. */
  url: string;
  token: string;
  /** Receives one line per request under --verbose; never headers, never bodies. */
  trace?: (line: string) => void;
}

/** The worker side of the worker protocol. Every call but `claim` goes to a URL from the task's `endpoints`. */
export class ProtocolClient {
  private readonly transport = new HttpTransport();
  private readonly claimUrl: string;

  constructor(private readonly options: ClientOptions) {
    this.claimUrl = new URL('api/v1/tasks/claim', options.url.endsWith('/') ? options.url : `${options.url}/`).toString();
  }

  /** Claims one task, holding the request open up to `waitSeconds` where the server long-polls. */
  async claim(request: ClaimRequest, waitSeconds: number, signal?: AbortSignal): Promise<ClaimedTask | null> {
    const url = waitSeconds > 0 ? `${this.claimUrl}?wait=${waitSeconds}` : this.claimUrl;
    const answer = await this.json('POST', url, request, (waitSeconds + 30) * 1000, signal);
    if (answer.status === 204) return null;
    if (answer.status !== 200) throw new ServerError(answer.status, errorMessage(answer));
    const body = parseJson(answer);
    const parsed = parseWith(ClaimResponseSchema, body);
    if (!parsed.ok) throw new UnreadableTaskError(`unexpected claim payload: ${parsed.message}`, completionUrlOf(body));
    return parsed.value.task;
  }

  async heartbeat(url: string): Promise<HeartbeatResponse> {
    const answer = await this.json('POST', url, {});
    return this.expect(answer, HeartbeatResponseSchema.parse.bind(HeartbeatResponseSchema));
  }

  async complete(url: string, outcome: CompleteRequest): Promise<CompleteResponse> {
    const answer = await this.json('POST', url, outcome);
    return this.expect(answer, CompleteResponseSchema.parse.bind(CompleteResponseSchema));
  }

  async appendLog(url: string, offset: number, bytes: Buffer): Promise<LogAppendResult> {
    const answer = await this.call({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/octet-stream', 'content-length': bytes.length, [LOG_OFFSET_HEADER]: offset },
      body: bytes,
    });
    if (answer.status === 409) {
      const gap = parseWith(LogGapResponseSchema, parseJson(answer));
      if (gap.ok) return { kind: 'gap', expectedOffset: gap.value.expected_offset };
    }
    if (answer.status === 413) return { kind: 'too-large' };
    const appended = this.expect(answer, LogAppendResponseSchema.parse.bind(LogAppendResponseSchema));
    return { kind: 'appended', offset: appended.offset };
  }

  /** Streams one file; `open` is called once per attempt so a retry starts from the first byte. */
  async uploadArtifact(url: string, path: string, size: number, open: () => Readable): Promise<void> {
    const answer = await this.call({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/octet-stream', 'content-length': size, [ARTIFACT_PATH_HEADER]: encodeHeaderPath(path) },
      body: open,
      idleTimeoutMs: 60_000,
    });
    if (answer.status < 200 || answer.status > 299) throw new ServerError(answer.status, errorMessage(answer));
  }

  /** Opens the source archive download; the caller consumes the stream. */
  async openSource(url: string): Promise<IncomingMessage> {
    const started = Date.now();
    const response = await this.transport.open({ method: 'GET', url, headers: this.authHeaders(), idleTimeoutMs: 60_000 });
    this.trace('GET', url, response.statusCode ?? 0, started);
    if (response.statusCode !== 200) {
      response.resume();
      throw new ServerError(response.statusCode ?? 0, 'source download refused');
    }
    return response;
  }

  close(): void {
    this.transport.close();
  }

  private json(method: string, url: string, body: unknown, idleTimeoutMs?: number, signal?: AbortSignal): Promise<HttpAnswer> {
    const bytes = Buffer.from(JSON.stringify(body));
    return this.call({ method, url, headers: { 'content-type': 'application/json', 'content-length': bytes.length }, body: bytes, idleTimeoutMs, signal });
  }

  private async call(options: RequestOptions): Promise<HttpAnswer> {
    const started = Date.now();
    try {
      const answer = await this.transport.send({ ...options, headers: { ...options.headers, ...this.authHeaders() } });
      this.trace(options.method, options.url, answer.status, started);
      return answer;
    } catch (error) {
      this.options.trace?.(`${options.method} ${options.url} failed after ${Date.now() - started} ms: ${(error as Error).message}`);
      throw error;
    }
  }

  private expect<T>(answer: HttpAnswer, parse: (value: unknown) => T): T {
    if (answer.status < 200 || answer.status > 299) throw new ServerError(answer.status, errorMessage(answer));
    try {
      return parse(parseJson(answer));
    } catch {
      throw new ServerError(answer.status, 'unexpected answer body');
    }
  }

  private authHeaders(): Record<string, string> {
    return { authorization: `Bearer ${this.options.token}` };
  }

  private trace(method: string, url: string, status: number, started: number): void {
    this.options.trace?.(`${method} ${url} -> ${status} in ${Date.now() - started} ms`);
  }
}

function completionUrlOf(body: unknown): string | null {
  const done = (body as { task?: { endpoints?: { done?: unknown } } } | null)?.task?.endpoints?.done;
  return typeof done === 'string' && /^https?:\/\//.test(done) ? done : null;
}

function parseJson(answer: HttpAnswer): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function errorMessage(answer: HttpAnswer): string {
  const body = parseJson(answer);
  if (typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string') {
    return (body as { error: string }).error;
  }
  return 'no error message';
}

/** Header values must be visible ASCII; a path with other characters is sent percent-encoded. */
function encodeHeaderPath(path: string): string {
  return /^[\x20-\x7e]*$/.test(path) ? path : encodeURI(path);
}
