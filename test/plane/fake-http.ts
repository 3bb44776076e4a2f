import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The loopback HTTP server under the tests' fake nodes (sweeper/fake-node.ts, node-ops/ops-node.ts):
 * it reads each request's body, lets the subclass answer, keeps a `hang`ed reply open until
 * `close()`, and closes without waiting for keep-alive sockets (the plane keeps its node
 * connections open from one call to the next).
 */
export abstract class FakeHttpServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly hung = new Set<ServerResponse>();

  protected constructor() {
    this.server = createServer((req, res) => {
      void this.receive(req, res);
    });
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  protected listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Answers `req`, whose body was read as `text` ('' when none). */
  protected abstract answer(req: IncomingMessage, res: ServerResponse, text: string): void;

  /** Never answers (the plane's time-out decides); the reply is destroyed at close. */
  protected hang(res: ServerResponse): void {
    this.hung.add(res);
  }

  protected json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private async receive(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    this.answer(req, res, Buffer.concat(chunks).toString('utf8'));
  }

  async close(): Promise<void> {
    for (const r of this.hung) r.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
