import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Fault = 'drop-before' | 'drop-after' | 'unavailable' | 'refuse' | null;

export interface LogServerOptions {
  /** Decides, per request, whether and how it fails. */
  fault?: (requestNumber: number) => Fault;
  /** Bodies larger than this are answered 413. */
  maxBody?: number;
  /** A log that would grow past this is answered 413 (the service's log size limit). */
  maxLog?: number;
}

/**
 * A real HTTP server that implements only the log-append semantics of the worker protocol: the
 * `X-Log-Offset` header, trimming an overlap, 409 with `expected_offset` on a gap. Faults are
 * injected on the wire (dropped sockets, 503s) so the client's recovery is tested for real.
 */
export class LogServer {
  stored: Buffer[] = [];
  length = 0;
  /** Arrival time and size of every accepted append. */
  readonly appends: { at: number; size: number; offset: number }[] = [];
  requests = 0;
  private readonly server: http.Server;

  constructor(private readonly options: LogServerOptions = {}) {
    this.server = http.createServer((req, res) => void this.handle(req, res));
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/log`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  content(): Buffer {
    return Buffer.concat(this.stored);
  }

  /** Forgets everything past `length`, as a server that lost its last writes would. */
  truncate(length: number): void {
    const all = this.content().subarray(0, length);
    this.stored = [Buffer.from(all)];
    this.length = all.length;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const fault = this.options.fault?.(this.requests) ?? null;
    this.requests += 1;
    if (fault === 'drop-before') return void req.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (fault === 'unavailable') return reply(res, 503, { error: 'try later' });
    if (fault === 'refuse') return reply(res, 404, { error: 'not found' });
    if (req.headers.authorization !== 'Bearer test-token') return reply(res, 401, { error: 'unauthorized' });
    if (this.options.maxBody !== undefined && body.length > this.options.maxBody) return reply(res, 413, { error: 'too large' });
    const offset = Number(req.headers['x-log-offset']);
    if (!Number.isInteger(offset) || offset < 0) return reply(res, 400, { error: 'bad offset' });
    if (offset > this.length) return reply(res, 409, { error: 'gap', expected_offset: this.length });
    const fresh = body.subarray(this.length - offset);
    if (this.options.maxLog !== undefined && this.length + fresh.length > this.options.maxLog) return reply(res, 413, { error: 'log limit' });
    if (fresh.length > 0) {
      this.stored.push(fresh);
      this.appends.push({ at: Date.now(), size: fresh.length, offset: this.length });
      this.length += fresh.length;
    }
    if (fault === 'drop-after') return void req.socket.destroy();
    reply(res, 200, { offset: this.length });
  }
}

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export { seededRandom } from '@conveyor/kit/testing';
