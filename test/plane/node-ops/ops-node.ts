import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpServer } from '../fake-http.js';

export interface OpsRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: unknown;
}

/**
 * A streaming node as the per-node routes and the fleet session list see it: the read routes
 * (`/api/v1/sessions`, `/api/v1/logs`, `/api/v1/license`, `/api/v1/config`) and
 * `PATCH /api/v1/config/globals` behind the write token (401 otherwise). `mode`: `up` answers,
 * `hang` never answers, `error` answers 500, `garbage` answers text that is not JSON, `forbid` 403.
 */
export class OpsNode extends FakeHttpServer {
  mode: 'up' | 'hang' | 'error' | 'garbage' | 'forbid' = 'up';
  sessions: Array<Record<string, unknown>> = [];
  configText = 'http 127.0.0.1:1;\n';
  epoch = 1;
  /** what PATCH config/globals answers; null: applies `log_level` to configText */
  globalsReply: { status: number; body: unknown } | null = null;
  /** null: a node build without the route (404) */
  license: Record<string, unknown> | null = {
    state: 'ok',
    licensee: 'Test Org',
    expires: '2027-01-01',
    updates_until: 'unlimited',
    build_date: '2026-11-01',
  };
  requests: OpsRequest[] = [];

  private constructor(public token: string) {
    super();
  }

  static async start(token = 'ops-write-token-0123456789'): Promise<OpsNode> {
    const n = new OpsNode(token);
    await n.listen();
    return n;
  }

  /** A viewer of `stream` as the node reports it. */
  viewer(stream: string, over: Record<string, unknown> = {}): Record<string, unknown> {
    const started = Number(over.started_at_ms ?? 1_700_000_000_000 + this.sessions.length);
    const row = {
      id: `sid-${this.sessions.length}-${Math.random().toString(36).slice(2, 8)}`,
      stream,
      protocol: 'hls',
      client_ip: '192.0.2.10',
      user_agent: 'TestPlayer/1.0',
      sub: '11111111-1111-4111-8111-111111111111',
      connected_ms: 5000,
      subject_kind: 'user',
      subject_name: 'Viewer One',
      camera_id: null,
      started_at_ms: started,
      ...over,
    };
    this.sessions.push(row);
    return row;
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string): void {
    const u = new URL(req.url ?? '/', 'http://x');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = 'unparseable';
    }
    this.requests.push({
      method: req.method ?? '',
      path: u.pathname,
      query: u.searchParams,
      authorization: req.headers.authorization,
      body,
    });
    if (this.mode === 'hang') {
      this.hang(res);
      return;
    }
    const json = (status: number, b: unknown) => this.json(res, status, b);
    if (req.headers.authorization !== `Bearer ${this.token}`) return json(401, { error: 'unauthorized' });
    if (this.mode === 'forbid') return json(403, { error: 'forbidden', reason: 'read_token_cannot_read_config' });
    if (this.mode === 'error') return json(500, { error: 'internal' });
    if (this.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"rows": [nope');
      return;
    }
    const route = `${req.method} ${u.pathname}`;
    if (route === 'GET /api/v1/sessions') return json(200, { rows: this.sessions });
    if (route === 'GET /api/v1/license' && this.license) return json(200, this.license);
    if (route === 'GET /api/v1/logs') {
      return json(200, {
        head_seq: 7,
        capacity: 4096,
        entries: [{ seq: 7, ts_ms: 1_700_000_000_000, level: 'info', target: 'argus_node', message: 'hello' }],
      });
    }
    if (route === 'GET /api/v1/config') {
      return json(200, {
        text: this.configText,
        version: '9.9.9',
        build: { version: '9.9.9' },
        epoch: this.epoch,
        hash: `h${this.epoch}`,
      });
    }
    if (route === 'GET /api/v1/config/history') {
      return json(
        200,
        Array.from({ length: this.epoch }, (_, i) => ({
          epoch: i + 1,
          hash: `h${i + 1}`,
          ts_ms: 1_700_000_000_000 + i,
          actor: i ? 'api' : 'boot',
          via: i ? 'api' : 'boot',
        })),
      );
    }
    if (route === 'POST /api/v1/config/rollback') {
      const to = (body as { epoch?: number } | null)?.epoch ?? 0;
      if (to < 1 || to > this.epoch) return json(404, { error: 'epoch_not_found', epoch: to });
      const from = this.epoch;
      this.epoch++;
      return json(200, { epoch: this.epoch, hash: `h${this.epoch}`, changed: true, rolled_from: from });
    }
    if (route === 'PATCH /api/v1/config/globals') {
      const written = (body as { auth?: { api_write_token?: string } } | null)?.auth?.api_write_token;
      if (this.globalsReply) {
        if (written && this.globalsReply.status === 200) this.token = written;
        return json(this.globalsReply.status, this.globalsReply.body);
      }
      if (written) this.token = written;
      const level = (body as { log_level?: string } | null)?.log_level;
      const before = this.configText;
      if (level) this.configText = `${before.replace(/^log_level .*;\n/m, '')}log_level ${level};\n`;
      const changed = this.configText !== before;
      if (changed) this.epoch++;
      return json(200, { epoch: this.epoch, hash: `h${this.epoch}`, changed });
    }
    json(404, { error: 'not_found' });
  }

  /** The requests of `path` received so far. */
  asked(path: string): OpsRequest[] {
    return this.requests.filter((r) => r.path === path);
  }
}
