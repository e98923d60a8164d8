// Test support: HTTP/1.1 over a bare TCP socket, for what fetch will not send (a Host header of the
// caller's choosing, headers announcing a body that never comes) and to see what the server does to
// the connection itself.
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** Resolves true when the server closes the connection within `ms`, false otherwise. */
  closedWithin(ms: number): Promise<boolean>;
  socket: Socket;
}

/** `url` is the service's base (`http://127.0.0.1:<port>`). */
export function openRaw(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Writes `head` (request line and headers, without the blank line) and `body` (nothing by default),
 * then waits at most `waitMs` for a complete answer (its body measured by Content-Length, none without).
 * Rejects when none comes.
 */
export function sendHead(socket: Socket, head: string, waitMs = 5000, body: string | Buffer = ''): Promise<RawAnswer> {
  let received = Buffer.alloc(0);
  let closed = false;
  const closing = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  void closing.then(() => {
    closed = true;
  });
  socket.on('error', () => undefined);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${waitMs} ms`)), waitMs);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const end = received.indexOf('\r\n\r\n');
      if (end === -1) return;
      const [statusLine = '', ...lines] = received.subarray(0, end).toString('latin1').split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (received.length < end + 4 + length) return;
      clearTimeout(timer);
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: received.subarray(end + 4, end + 4 + length).toString('utf8'),
        closedWithin: async (ms) => {
          if (closed) return true;
          let timeout: NodeJS.Timeout | undefined;
          const result = await Promise.race([
            closing.then(() => true),
            new Promise<boolean>((resolveTimeout) => {
              timeout = setTimeout(() => resolveTimeout(false), ms);
            }),
          ]);
          clearTimeout(timeout);
          return result;
        },
        socket,
      });
    });
    socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), Buffer.from(body)]));
  });
}

/** The head of a POST announcing `length` body bytes. */
export function postHead(path: string, length: number, headers: Record<string, string> = {}, host = '127.0.0.1'): string {
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${host}`, 'Content-Type: application/json', `Content-Length: ${length}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return lines.join('\r\n');
}
