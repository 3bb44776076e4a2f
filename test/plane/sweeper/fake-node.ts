import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpServer } from '../fake-http.js';
import { maskUrlPassword } from '../../../src/common/redact.js';

/**
 * A streaming node as the sweeper sees it: `GET /api/v1/system` and `GET /api/v1/streams` behind
 * the write token (401 otherwise). `mode`: `up` answers, `hang` accepts and never answers (the
 * plane's time-out decides), `error` answers 500.
 */
export class FakeNode extends FakeHttpServer {
  mode: 'up' | 'hang' | 'error' = 'up';
  version = '1.2.3';
  /** stream name -> state, as the node reports it */
  streams = new Map<string, string>();
  /** stream name -> its settings as the node lists them (input masked like the node does) */
  specs = new Map<string, { input: string; dvr: { storage: string; retention: string } | null; on_demand: boolean }>();
  /** whether PUT and DELETE of streams are taken (otherwise 404, as a node without that API) */
  acceptWrites = false;
  /** the state a stream put here starts in */
  putState = 'live';
  storages: Array<{
    name: string;
    total_bytes: number;
    avail_bytes: number;
    write_iops: number;
    identity_healthy: boolean;
  }> = [];
  license: { state: string } | null = null;
  requests: Array<{ method: string; path: string; authorization: string | undefined; body?: unknown }> = [];

  private constructor(readonly token: string) {
    super();
  }

  static async start(token = 'node-write-token-0123456789'): Promise<FakeNode> {
    const n = new FakeNode(token);
    await n.listen();
    return n;
  }

  stream(cameraId: string, state: string | null, profile: 'main' | 'sub' = 'main'): void {
    if (state === null) this.streams.delete(`${cameraId}_${profile}`);
    else this.streams.set(`${cameraId}_${profile}`, state);
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string): void {
    const body = text ? (JSON.parse(text) as unknown) : undefined;
    this.requests.push({
      method: req.method ?? '',
      path: req.url ?? '',
      authorization: req.headers.authorization,
      body,
    });
    if (this.mode === 'hang') {
      this.hang(res);
      return;
    }
    const json = (status: number, b: unknown) => this.json(res, status, b);
    if (req.headers.authorization !== `Bearer ${this.token}`) return json(401, { error: 'unauthorized' });
    if (this.mode === 'error') return json(500, { error: 'internal' });
    if (req.method === 'GET' && req.url === '/api/v1/system') {
      const states = [...this.streams.values()];
      return json(200, {
        version: this.version,
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
        storages: this.storages,
        license: this.license,
      });
    }
    if (req.method === 'GET' && req.url === '/api/v1/streams') {
      return json(200, {
        rows: [...this.streams].map(([name, state]) => ({
          name,
          state,
          input: 'testsrc://',
          dvr: null,
          on_demand: false,
          ...this.specs.get(name),
          viewers: 0,
        })),
      });
    }
    const m = /^\/api\/v1\/streams\/([^/]+)$/.exec(req.url ?? '');
    if (m && this.acceptWrites && req.method === 'PUT') {
      const b = body as { input: string; dvr?: { storage: string; retention: string } | null; on_demand?: boolean };
      const name = decodeURIComponent(m[1]!);
      const created = !this.streams.has(name);
      this.specs.set(name, { input: maskUrlPassword(b.input), dvr: b.dvr ?? null, on_demand: b.on_demand ?? false });
      if (created) this.streams.set(name, this.putState);
      return json(created ? 201 : 200, { epoch: 1, hash: 'x', changed: true });
    }
    if (m && this.acceptWrites && req.method === 'DELETE') {
      const name = decodeURIComponent(m[1]!);
      if (!this.streams.delete(name)) return json(404, { error: 'not_found' });
      this.specs.delete(name);
      return json(200, { epoch: 1, hash: 'x', changed: true });
    }
    json(404, { error: 'not_found' });
  }
}
