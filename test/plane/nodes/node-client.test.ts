import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeHttpServer } from '../fake-http.js';
import { NodeCallFailure, NodeClient } from '../../../src/plane/nodes/node-client.js';
import { ApiError } from '../../../src/common/api-error.js';

/**
 * The plane's one node client against a real loopback HTTP server: good replies read and typed,
 * malformed, oversize and slow ones failing with their fixed word, and the token only ever in the
 * Authorization header.
 */
const TOKEN = 'node-client-token-Canary7f3';
type Answer = (req: IncomingMessage, res: ServerResponse, body: string) => void;

class Node extends FakeHttpServer {
  routes = new Map<string, Answer>();
  seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];

  static async start(): Promise<Node> {
    const n = new Node();
    await n.listen();
    return n;
  }

  private constructor() {
    super();
  }

  on(route: string, status: number, body: unknown): void {
    this.routes.set(route, (_q, res) => this.json(res, status, body));
  }

  raw(route: string, status: number, text: string): void {
    this.routes.set(route, (_q, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(text);
    });
  }

  slow(route: string): void {
    this.routes.set(route, (_q, res) => this.hang(res));
  }

  protected answer(req: IncomingMessage, res: ServerResponse, text: string): void {
    const u = new URL(req.url ?? '/', 'http://x');
    this.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: text });
    const a = this.routes.get(`${req.method} ${u.pathname}`);
    if (a) a(req, res, text);
    else this.json(res, 404, { error: 'not_found' });
  }
}

const SYSTEM = {
  version: '1.4.0',
  cpus: 4,
  proc_cpu_cores: 0.25,
  host_cpu_busy_pct: 12.5,
  mem_total_mb: 4096,
  mem_available_mb: 2048,
  rss_mb: 90,
  stream_counts: { total: 2, live: 1, degraded: 0, failing: 1 },
  storages: [{ name: 'disk1', total_bytes: 1000, avail_bytes: 400, write_iops: 3.5, identity_healthy: true }],
  license: { state: 'grace' },
};

/** What a failed call throws, as a NodeCallFailure. */
async function failure(p: Promise<unknown>): Promise<NodeCallFailure> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NodeCallFailure);
  return err as NodeCallFailure;
}

let node: Node;
const client = new NodeClient({ timeoutMs: 2000, maxReplyBytes: 64 * 1024, maxPollReplyBytes: 4096 });
const at = () => client.at({ url: node.url, apiToken: TOKEN });

beforeAll(async () => {
  node = await Node.start();
});
afterAll(async () => {
  await node.close();
});
beforeEach(() => {
  node.routes.clear();
  node.seen = [];
});

describe('good replies, typed', () => {
  it('system: the version, telemetry, storages and licence signal; the token in the Authorization header only', async () => {
    node.on('GET /api/v1/system', 200, { ...SYSTEM, extra: 'ignored' });
    const s = await at().system();
    expect(s).toEqual({
      version: '1.4.0',
      telemetry: {
        cpus: 4,
        proc_cpu_cores: 0.25,
        host_cpu_busy_pct: 12.5,
        mem_total_mb: 4096,
        mem_available_mb: 2048,
        rss_mb: 90,
        stream_counts: { total: 2, live: 1, degraded: 0, failing: 1 },
      },
      storages: [SYSTEM.storages[0]],
      license: 'grace',
    });
    const req = node.seen[0]!;
    expect(req.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(req.headers.accept).toBe('application/json');
    expect(req.url).toBe('/api/v1/system');
  });

  it('system of another node version: only the version is required, the parts it lacks are null', async () => {
    node.on('GET /api/v1/system', 200, {
      version: 'x'.repeat(300),
      storages: [{ name: 'd' }],
      license: { state: 'odd' },
    });
    const s = await at().system();
    expect(s).toEqual({ version: 'x'.repeat(128), telemetry: null, storages: null, license: null });
  });

  it('streams: rows without a name or state are left out; a bad dvr or input reads as null', async () => {
    // Rows without ingest figures (an older node, a stream not started) read them as null.
    const noFigures = { fps: null, bitrate_kbps: null, resolution: null, codec: null };
    node.on('GET /api/v1/streams', 200, {
      rows: [
        {
          name: 'a_main',
          state: 'live',
          input: 'rtsp://u:***@cam/1',
          dvr: { storage: 'disk1', retention: '7d' },
          on_demand: false,
        },
        { name: 'b_main', state: 'failing', input: 7, dvr: { storage: 1 }, on_demand: 'yes' },
        { state: 'live' },
        'nonsense',
      ],
    });
    expect(await at().streams()).toEqual([
      {
        name: 'a_main',
        state: 'live',
        input: 'rtsp://u:***@cam/1',
        dvr: { storage: 'disk1', retention: '7d' },
        on_demand: false,
        ...noFigures,
      },
      { name: 'b_main', state: 'failing', input: null, dvr: null, on_demand: false, ...noFigures },
    ]);
  });

  it('stream writes: the spec as JSON; 201 created, 200 replaced; a delete of an absent stream (404) is absent', async () => {
    const spec = { input: 'rtsp://cam/1', dvr: null, on_demand: false };
    node.on('PUT /api/v1/streams/cam%20one', 201, { epoch: 2, hash: 'h', changed: true });
    expect(await at().putStream('cam one', spec)).toBe('created');
    expect(node.seen[0]!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(node.seen[0]!.body)).toEqual(spec);
    node.on('PUT /api/v1/streams/cam%20one', 200, { epoch: 3, hash: 'h', changed: true });
    expect(await at().putStream('cam one', spec)).toBe('replaced');
    node.on('DELETE /api/v1/streams/gone', 404, { error: 'not_found' });
    expect(await at().deleteStream('gone')).toBe('absent');
    node.on('DELETE /api/v1/streams/here', 200, { epoch: 4, hash: 'h', changed: true });
    expect(await at().deleteStream('here')).toBe('deleted');
  });

  it('logs forward the query; licence fields the node leaves out are null; a rollback from an older node has no write_token_kept', async () => {
    const page = {
      head_seq: 3,
      capacity: 10,
      entries: [{ seq: 3, ts_ms: 1, level: 'warn', target: 't', message: 'm' }],
    };
    node.on('GET /api/v1/logs', 200, page);
    expect(await at().logs({ level: 'warn', q: 'a b', after: 2, limit: undefined })).toEqual(page);
    expect(node.seen[0]!.url).toBe('/api/v1/logs?level=warn&q=a+b&after=2');
    node.on('GET /api/v1/license', 200, { state: 'none', build_date: '2026-01-01', licensee: 5 });
    expect(await at().license()).toEqual({
      state: 'none',
      licensee: null,
      expires: null,
      updates_until: null,
      build_date: '2026-01-01',
    });
    node.on('POST /api/v1/config/rollback', 200, { epoch: 5, hash: 'h', changed: true, rolled_from: 4 });
    expect(await at().rollback(2)).toEqual({ epoch: 5, hash: 'h', changed: true, rolled_from: 4 });
    expect(JSON.parse(node.seen.at(-1)!.body)).toEqual({ epoch: 2 });
  });

  it('sessions as reported must all be session rows; the fleet list leaves the others out', async () => {
    const row = {
      id: 's1',
      stream: 'a_main',
      protocol: 'hls',
      client_ip: '192.0.2.1',
      user_agent: 'ua',
      sub: 'u',
      connected_ms: 5,
      subject_kind: 'user',
      subject_name: 'Ann',
      camera_id: null,
      started_at_ms: 10,
    };
    const older = { ...row, id: 's2', subject_kind: undefined, subject_name: undefined, camera_id: undefined };
    node.on('GET /api/v1/sessions', 200, {
      rows: [row, older, { ...row, id: 'x'.repeat(129) }, { ...row, connected_ms: 'soon' }],
    });
    expect(await at().sessionRows()).toEqual([row, { ...row, id: 's2', subject_kind: null, subject_name: null }]);
    expect((await failure(at().sessions())).reason).toBe('bad_reply');
  });
});

describe('bad replies fail with a fixed word', () => {
  it('not JSON, or JSON of another shape: bad_reply with the status', async () => {
    node.raw('GET /api/v1/system', 200, '{"version": [nope');
    expect(await failure(at().system())).toMatchObject({ reason: 'bad_reply', nodeStatus: 200 });
    node.on('GET /api/v1/system', 200, { rows: [] });
    expect(await failure(at().system())).toMatchObject({ reason: 'bad_reply', nodeStatus: 200 });
    node.on('GET /api/v1/streams', 200, { rows: 'none' });
    expect(await failure(at().streams())).toMatchObject({ reason: 'bad_reply', nodeStatus: 200 });
    node.raw('GET /api/v1/config', 200, '');
    expect(await failure(at().config())).toMatchObject({ reason: 'bad_reply', nodeStatus: 200 });
    node.on('GET /api/v1/logs', 200, {
      head_seq: 1,
      capacity: 1,
      entries: [{ seq: 1, ts_ms: 1, level: 'trace', target: 't', message: 'm' }],
    });
    expect(await failure(at().logs({}))).toMatchObject({ reason: 'bad_reply', nodeStatus: 200 });
  });

  it('a reply past the limit is bad_reply: the sweeper reads (system, streams) have the smaller bound', async () => {
    const big = { ...SYSTEM, padding: 'p'.repeat(8000) };
    node.on('GET /api/v1/system', 200, big);
    expect(await failure(at().system())).toMatchObject({ reason: 'bad_reply', nodeStatus: null });
    node.on('GET /api/v1/config', 200, { text: 'p'.repeat(8000), version: '1', build: {}, epoch: 1, hash: 'h' });
    expect((await at().config()).text).toHaveLength(8000);
    node.on('GET /api/v1/config', 200, { text: 'p'.repeat(70_000), version: '1', build: {}, epoch: 1, hash: 'h' });
    expect(await failure(at().config())).toMatchObject({ reason: 'bad_reply', nodeStatus: null });
  });

  it('a node that does not answer in time: timeout, by the time-out or by the caller signal', async () => {
    node.slow('GET /api/v1/system');
    const t0 = Date.now();
    expect((await failure(at().system({ timeoutMs: 150 }))).reason).toBe('timeout');
    expect(Date.now() - t0).toBeLessThan(1500);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    expect((await failure(at().system({ signal: ctl.signal }))).reason).toBe('timeout');
  });

  it('no connection: refused', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const f = await failure(client.at({ url: `http://127.0.0.1:${port}`, apiToken: TOKEN }).system());
    expect(f.reason).toBe('refused');
  });

  it('401/403: auth; another status: status, the refusal readable but in no field, message or JSON of the error', async () => {
    node.on('GET /api/v1/license', 401, { error: 'unauthorized' });
    expect(await failure(at().license())).toMatchObject({ reason: 'auth', nodeStatus: 401 });
    node.on('PATCH /api/v1/config/globals', 403, { error: 'forbidden' });
    expect(await failure(at().patchGlobals({ log_level: 'info' }))).toMatchObject({ reason: 'auth', nodeStatus: 403 });
    const refusal = { error: 'invalid_config', message: `token ${TOKEN} rejected` };
    node.on('PATCH /api/v1/config/globals', 422, refusal);
    const f = await failure(at().patchGlobals({ log_level: 'info' }));
    expect(f).toMatchObject({ reason: 'status', nodeStatus: 422 });
    expect(f.refusal()).toEqual(refusal);
    const shown = `${f.message} ${String(f)} ${JSON.stringify(f)} ${Object.keys(f).join(' ')} ${f.stack ?? ''}`;
    expect(shown).not.toContain(TOKEN);
    expect(shown).not.toContain('invalid_config');
    expect(shown).not.toContain(node.url);
  });

  it('a stored URL that makes no http(s) URL: 500 url_build_failed before any call', async () => {
    for (const url of ['ftp://127.0.0.1/', 'not a url']) {
      let err: unknown;
      try {
        client.at({ url, apiToken: TOKEN });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 500, code: 'url_build_failed' });
    }
    expect(node.seen).toEqual([]);
  });
});
