import net from 'node:net';

/**
 * A TCP proxy that can stop forwarding without closing anything: bytes in either direction are
 * dropped and the sockets stay open, as behind a firewall that silently drops packets or a NAT
 * that lost its state. New connections are accepted and then hear nothing. `heal()` forwards
 * again on new connections only; the connections that were blackholed stay silent until close().
 */
export class BlackholeProxy {
  private server: net.Server | null = null;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket; dead: boolean }>();
  private holing = false;
  port = 0;

  constructor(private readonly upstream: { host: string; port: number }) {}

  static forUrl(url: string): BlackholeProxy {
    const u = new URL(url);
    return new BlackholeProxy({ host: u.hostname || '127.0.0.1', port: Number(u.port || 5432) });
  }

  urlThrough(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      client.on('error', () => {});
      if (this.holing) {
        // Accepted, never answered: the client's connect succeeds and its start-up message vanishes.
        const pair = { client, upstream: new net.Socket(), dead: true };
        this.pairs.add(pair);
        client.on('data', () => {});
        return;
      }
      const upstream = net.connect(this.upstream.port, this.upstream.host);
      const pair = { client, upstream, dead: false };
      this.pairs.add(pair);
      upstream.on('error', () => {});
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.pairs.delete(pair);
      };
      client.on('close', () => {
        if (!pair.dead) drop();
      });
      upstream.on('close', () => {
        if (!pair.dead) drop();
      });
      client.on('data', (b) => {
        if (!pair.dead) upstream.write(b);
      });
      upstream.on('data', (b) => {
        if (!pair.dead) client.write(b);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.port = (server.address() as net.AddressInfo).port;
  }

  /** Every open connection and every new one goes silent; nothing is closed. */
  blackhole(): void {
    this.holing = true;
    for (const p of this.pairs) p.dead = true;
  }

  heal(): void {
    this.holing = false;
  }

  async close(): Promise<void> {
    for (const p of this.pairs) {
      p.client.destroy();
      p.upstream.destroy();
    }
    this.pairs.clear();
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}
