import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string | number>;
  /** A buffer or string is sent with its Content-Length; a stream is piped with backpressure. */
  body?: Buffer | string | Readable;
  agent: Agent;
}

/** A keep-alive agent: every measured call reuses its connections, as a worker's client would. */
export function keepAliveAgent(maxSockets: number): Agent {
  return new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets });
}

/** One HTTP call over node:http; resolves once the whole response body has arrived. */
export function call(options: HttpCall): Promise<HttpResponse> {
  return new Promise<HttpResponse>((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers };
    const body = options.body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) headers['content-length'] = Buffer.byteLength(body);
    const outgoing = httpRequest(options.url, { method: options.method, headers, agent: options.agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks) }));
    });
    outgoing.on('error', reject);
    if (body instanceof Readable) {
      // pipeline ends the request when the body ends; a failure of either side rejects the call.
      pipeline(body, outgoing).catch(reject);
    } else {
      outgoing.end(body);
    }
  });
}

/** Parses a JSON response body, naming the call in the error when it is not JSON. */
export function jsonOf(response: HttpResponse, what: string): unknown {
  try {
    return JSON.parse(response.body.toString('utf8')) as unknown;
  } catch {
    throw new Error(`${what}: expected JSON, got HTTP ${response.status} ${response.body.toString('utf8').slice(0, 200)}`);
  }
}

/** Throws with the status and the start of the body unless the status is the expected one. */
export function expectStatus(response: HttpResponse, expected: number, what: string): void {
  if (response.status !== expected) {
    throw new Error(`${what}: expected HTTP ${expected}, got ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`);
  }
}
