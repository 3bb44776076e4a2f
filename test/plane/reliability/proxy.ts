import net from 'node:net';

/**
 * A TCP proxy of the test's own between the plane and PostgreSQL. `cut()` destroys every
 * open connection and stops listening (new connections are refused, as by a stopped server);
 * `restore()` listens again on the same port.
 */
export class TcpProxy {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;
  /** Connections accepted so far (a test can see that the plane really went through the proxy). */
  accepted = 0;

  constructor(private readonly upstream: { host: string; port: number }) {}

  static forUrl(url: string): TcpProxy {
    const u = new URL(url);
    return new TcpProxy({ host: u.hostname || '127.0.0.1', port: Number(u.port || 5432) });
  }

  /** The same URL with host and port replaced by the proxy's. */
  urlThrough(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  get listening(): boolean {
    return this.server !== null;
  }

  async start(port = 0): Promise<void> {
    const server = net.createServer((client) => {
      this.accepted++;
      const upstream = net.connect(this.upstream.port, this.upstream.host);
      this.sockets.add(client);
      this.sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  /** Every open connection dies at once; new ones are refused until restore(). */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }

  async restore(): Promise<void> {
    if (!this.server) await this.start(this.port);
  }

  async close(): Promise<void> {
    await this.cut();
  }
}

/** The `sid` claim of a session JWT (the id of its row in `sessions`). */
export function sidOf(token: string): string {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')).sid;
}
