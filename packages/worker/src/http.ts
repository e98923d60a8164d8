import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';

/** An answer from the server, its body read whole (protocol answers are small JSON documents). */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export interface RequestOptions {
  method: string;
  url: string;
  headers?: Record<string, string | number>;
  /** A buffer, or a function that opens a fresh stream (so a failed upload can start over). */
  body?: Buffer | (() => Readable);
  /** Milliseconds without any socket activity before the request is abandoned. */
  idleTimeoutMs?: number;
  /** Abandons the request (a long poll the worker no longer wants). */
  signal?: AbortSignal;
}

/** The connection failed or broke before a complete answer arrived; the request may or may not have been applied. */
export class ConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionError';
  }
}

const MAX_ANSWER_BYTES = 1024 * 1024;

/**
 * A small keep-alive HTTP client over node:http. The worker needs exact control over
 * `Content-Length` and streamed bodies, and must never print its `Authorization` header, so
 * it speaks HTTP itself instead of going through a general-purpose client.
 */
export class HttpTransport {
  private readonly agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };

  /** Sends a request and reads the whole (bounded) answer. */
  async send(options: RequestOptions): Promise<HttpAnswer> {
    const response = await this.open(options);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) throw new ConnectionError('answer too large');
        chunks.push(chunk);
      }
    } catch (error) {
      response.destroy();
      throw error instanceof ConnectionError ? error : new ConnectionError(describe(error));
    }
    if (!response.complete) throw new ConnectionError('answer cut short');
    return { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) };
  }

  /** Sends a request and hands back the answer as a stream, for downloads. */
  open(options: RequestOptions): Promise<http.IncomingMessage> {
    const url = new URL(options.url);
    const agent = url.protocol === 'https:' ? this.agents['https:'] : this.agents['http:'];
    const lib = url.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const request = lib.request(url, { method: options.method, headers: options.headers, agent });
      request.setTimeout(options.idleTimeoutMs ?? 30_000, () => request.destroy(new ConnectionError('timed out')));
      request.on('error', (error) => reject(error instanceof ConnectionError ? error : new ConnectionError(describe(error))));
      if (options.signal !== undefined) {
        const onAbort = (): void => void request.destroy(new ConnectionError('aborted'));
        if (options.signal.aborted) onAbort();
        options.signal.addEventListener('abort', onAbort, { once: true });
        request.on('close', () => options.signal?.removeEventListener('abort', onAbort));
      }
      request.on('response', (response) => {
        response.on('error', () => undefined); // readers see the cut through `complete`
        resolve(response);
      });
      writeBody(request, options.body);
    });
  }

  close(): void {
    this.agents['http:'].destroy();
    this.agents['https:'].destroy();
  }
}

function writeBody(request: http.ClientRequest, body: RequestOptions['body']): void {
  if (body === undefined) {
    request.end();
  } else if (Buffer.isBuffer(body)) {
    request.end(body);
  } else {
    const source = body();
    source.on('error', (error) => request.destroy(new ConnectionError(`reading the body: ${describe(error)}`)));
    request.on('close', () => source.destroy());
    source.pipe(request);
  }
}

export function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
