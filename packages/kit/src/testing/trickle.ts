import { connect } from 'node:net';

export interface TrickleOutcome {
  /** Everything the server sent before it closed the connection. */
  answer: string;
  /** From the first byte sent to the close. */
  elapsedMs: number;
}

/**
 * Sends `head` on a real socket to 127.0.0.1:`port`, then one byte of `rest` every `everyMs`, until
 * the server closes the connection (or `giveUpMs` passes, which rejects): a client too slow on purpose.
 */
export function trickle(port: number, head: string, rest: string, everyMs: number, giveUpMs = 15_000): Promise<TrickleOutcome> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    const ticker = setInterval(() => {
      if (sent < rest.length && socket.writable) socket.write(rest[sent++] ?? '');
    }, everyMs);
    const giveUp = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${giveUpMs} ms`));
    }, giveUpMs);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(ticker);
      clearTimeout(giveUp);
      resolve({ answer, elapsedMs: Date.now() - started });
    });
    socket.write(head);
  });
}
