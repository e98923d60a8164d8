import net from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy that cuts connections at random points, in both directions, as a bad network
 * would: each connection may carry only a random number of bytes before both ends are destroyed.
 */
export class FlakyProxy {
  drops = 0;
  connections = 0;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();

  constructor(private readonly target: { host: string; port: number }, private readonly random: () => number, private readonly maxBytes: number) {
    this.server = net.createServer((client) => this.relay(client));
  }

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private relay(client: net.Socket): void {
    this.connections += 1;
    const upstream = net.connect(this.target);
    this.sockets.add(client).add(upstream);
    // Every connection is cut after a random amount of traffic, so a long log needs many of them.
    let budget = Math.floor(this.random() * this.maxBytes);
    const forward = (from: net.Socket, to: net.Socket): void => {
      from.on('data', (chunk: Buffer) => {
        budget -= chunk.length;
        if (budget < 0) {
          this.drops += 1;
          client.destroy();
          upstream.destroy();
          return;
        }
        to.write(chunk);
      });
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    };
    forward(client, upstream);
    forward(upstream, client);
  }
}
