/**
 * Thousands of fake streaming nodes in the bench process (bench/plane/fleet-10k.ts): one HTTP
 * server answers for all of them, each node on a port of its own (a listening socket whose
 * connections are handed to the one server), so the plane's keep-alive agents see as many hosts
 * as a real fleet has (its pool is per host and port: nodes told apart by path on one port would
 * share four sockets). Each node answers what the sweeper and the provisioning call, as
 * test/plane/sweeper/fake-node.ts does (GET /api/v1/system, GET /api/v1/streams, PUT and DELETE
 * /api/v1/streams/{name} behind the write token), keeping only counters, not a request log.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

interface FakeStream {
  state: string;
  input: string;
  dvr: { storage: string; retention: string } | null;
  on_demand: boolean;
}

/** One fake node: its streams by name, as the node would list them. */
interface FleetNode {
  port: number;
  streams: Map<string, FakeStream>;
}

export class FakeFleet {
  readonly nodes: FleetNode[] = [];
  /** requests answered, by kind */
  readonly counts = { system: 0, streams: 0, put: 0, delete: 0 };
  /** when the last PUT was answered (performance.now()) */
  lastPutAt = 0;
  private readonly listeners: Server[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly nodeOf = new WeakMap<Socket, FleetNode>();
  private readonly http = createHttpServer((req, res) => this.receive(req, res));

  private constructor(readonly token: string) {
    // A real node (Fastify) keeps an idle connection 72 s: the plane's agents reuse it sweep to sweep.
    this.http.keepAliveTimeout = 72_000;
  }

  /** `n` nodes on loopback ports, every one taking stream writes with `token`. */
  static async start(n: number, token = 'fleet-node-token-0123456789'): Promise<FakeFleet> {
    const f = new FakeFleet(token);
    for (let i = 0; i < n; i++) {
      const node: FleetNode = { port: 0, streams: new Map() };
      const l = createNetServer((s) => {
        f.sockets.add(s);
        s.on('close', () => f.sockets.delete(s));
        f.nodeOf.set(s, node);
        f.http.emit('connection', s);
      });
      await new Promise<void>((r) => l.listen(0, '127.0.0.1', r));
      node.port = (l.address() as AddressInfo).port;
      f.listeners.push(l);
      f.nodes.push(node);
    }
    return f;
  }

  url(i: number): string {
    return `http://127.0.0.1:${this.nodes[i]!.port}`;
  }

  /** Camera streams held by every node together. */
  get streamCount(): number {
    return this.nodes.reduce((n, x) => n + x.streams.size, 0);
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const node = this.nodeOf.get(req.socket);
      if (!node) return this.json(res, 500, { error: 'internal' });
      this.answer(node, req, res, Buffer.concat(chunks).toString('utf8'));
    });
  }

  private answer(node: FleetNode, req: IncomingMessage, res: ServerResponse, text: string): void {
    if (req.headers.authorization !== `Bearer ${this.token}`) return this.json(res, 401, { error: 'unauthorized' });
    const url = req.url ?? '';
    if (req.method === 'GET' && url === '/api/v1/system') {
      this.counts.system++;
      const states = [...node.streams.values()].map((s) => s.state);
      return this.json(res, 200, {
        version: '1.2.3',
        cpus: 2,
        proc_cpu_cores: 0.1,
        host_cpu_busy_pct: 5,
        mem_total_mb: 2048,
        mem_available_mb: 1024,
        rss_mb: 80,
        stream_counts: {
          total: states.length,
          live: states.filter((s) => s === 'live').length,
          degraded: states.filter((s) => s === 'degraded').length,
          failing: states.filter((s) => s === 'failing').length,
        },
        storages: [],
        license: null,
      });
    }
    if (req.method === 'GET' && url === '/api/v1/streams') {
      this.counts.streams++;
      return this.json(res, 200, {
        rows: [...node.streams].map(([name, s]) => ({ name, ...s, viewers: 0 })),
      });
    }
    const m = /^\/api\/v1\/streams\/([^/]+)$/.exec(url);
    if (m && req.method === 'PUT') {
      this.counts.put++;
      this.lastPutAt = performance.now();
      const b = JSON.parse(text) as { input: string; dvr?: FakeStream['dvr']; on_demand?: boolean };
      const name = decodeURIComponent(m[1]!);
      const created = !node.streams.has(name);
      node.streams.set(name, { state: 'live', input: b.input, dvr: b.dvr ?? null, on_demand: b.on_demand ?? false });
      return this.json(res, created ? 201 : 200, { epoch: 1, hash: 'x', changed: true });
    }
    if (m && req.method === 'DELETE') {
      this.counts.delete++;
      const gone = node.streams.delete(decodeURIComponent(m[1]!));
      return this.json(res, gone ? 200 : 404, gone ? { epoch: 1, hash: 'x', changed: true } : { error: 'not_found' });
    }
    this.json(res, 404, { error: 'not_found' });
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await Promise.all(this.listeners.map((l) => new Promise<void>((r) => l.close(() => r()))));
    this.http.close();
  }
}
