import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, CANARY, type TestPlane } from '../harness.js';
import { login, type Client } from '../client.js';
import { tenants, type Tenants } from '../inventory.helpers.js';

// GET /api/v1/logs/plane (document 1, "Control-plane log"): superadmin only, the envelope, every
// parameter and limit, and canary secrets through the paths that log.
let t: TestPlane;
let x: Tenants;
let root: Client;

const page = async (query = '') => {
  const r = await root.get(`/api/v1/logs/plane${query}`);
  expect(r.status, r.text).toBe(200);
  return r.body as {
    head_seq: number;
    capacity: number;
    capture_level: string;
    capture_source: string;
    capture_environment_override: boolean;
    entries: Array<{ seq: number; ts_ms: number; level: string; target: string; message: string }>;
  };
};
const log = () => t.plane.app.log;
/** The entries of a page without the request lines (a q search logs its own URL, which holds the q). */
const own = async (query: string) => (await page(query)).entries.filter((e) => e.target !== 'argus_plane::http');

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  root = x.root;
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/v1/logs/plane', () => {
  it('answers the envelope: head_seq, capacity 4096, capture_* from the settings file, entries newest first', async () => {
    const p = await page();
    expect(p.capacity).toBe(4096);
    expect(p.capture_level).toBe('info');
    expect(p.capture_environment_override).toBe(false);
    expect(p.capture_source).toMatch(/^settings file .*\[logging\] minimum_level$/);
    expect(p.head_seq).toBeGreaterThan(0);
    expect(p.entries.length).toBeGreaterThan(0);
    expect(p.entries[0]!.seq).toBeLessThanOrEqual(p.head_seq);
    const seqs = p.entries.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    for (const e of p.entries) expect(Object.keys(e).sort()).toEqual(['level', 'message', 'seq', 'target', 'ts_ms']);
  });

  it('holds every line the logger writes at or above the capture level, not below', async () => {
    log().info({ part: 'probe' }, 'probe-info-line');
    log().debug('probe-debug-line');
    const entries = await own('?q=probe-');
    expect(entries.map((e) => e.message)).toEqual(['probe-info-line']);
    expect(entries[0]!.target).toBe('argus_plane::probe');
  });

  it('is for the superadmin only', async () => {
    expect((await x.a.admin.get('/api/v1/logs/plane')).status).toBe(403);
    expect((await x.a.operator.get('/api/v1/logs/plane')).status).toBe(403);
    expect((await x.anon.get('/api/v1/logs/plane')).status).toBe(401);
    expect((await x.a.admin.get('/api/v1/logs/plane/stream')).status).toBe(403);
  });

  it('the bare /api/v1/logs stays 501', async () => {
    const r = await root.get('/api/v1/logs');
    expect(r.status).toBe(501);
    expect(r.body).toEqual({ error: 'not_implemented' });
  });

  it('filters by level (minimum; all = none), target (exact), q (case-insensitive over message and target)', async () => {
    const child = log().child({ part: 'filtertest' });
    child.info('FilterMark one');
    child.warn('filtermark two');
    child.error('FILTERMARK three');
    log().child({ part: 'filtertest2' }).error('filtermark four');
    const msgs = async (q: string) => (await own(q)).map((e) => e.message);
    expect(await msgs('?q=filtermark')).toEqual([
      'filtermark four',
      'FILTERMARK three',
      'filtermark two',
      'FilterMark one',
    ]);
    expect(await msgs('?q=filtermark&level=all')).toHaveLength(4);
    expect(await msgs('?q=filtermark&level=info')).toHaveLength(4);
    expect(await msgs('?q=filtermark&level=debug')).toHaveLength(4);
    expect(await msgs('?q=filtermark&level=warn')).toEqual(['filtermark four', 'FILTERMARK three', 'filtermark two']);
    expect(await msgs('?q=filtermark&level=error')).toEqual(['filtermark four', 'FILTERMARK three']);
    expect(await msgs('?target=argus_plane::filtertest')).toEqual([
      'FILTERMARK three',
      'filtermark two',
      'FilterMark one',
    ]);
    expect(await msgs('?target=argus_plane::filtertes')).toEqual([]);
    expect(await msgs('?q=FILTERTEST2')).toEqual(['filtermark four']); // q searches the target too
  });

  it('after and limit: entries above after; the newest limit of the matches (default 500, 1..1000)', async () => {
    for (let i = 0; i < 600; i++) log().info(`bulk-line ${i}`);
    const head = (await page()).head_seq;
    expect((await page()).entries).toHaveLength(500);
    expect((await page('?limit=1000')).entries.length).toBeGreaterThan(600);
    const one = await page('?target=argus_plane&q=bulk-line&limit=1');
    expect(one.entries.map((e) => e.message)).toEqual(['bulk-line 599']);
    const after = await page(`?target=argus_plane&q=bulk-line&after=${one.entries[0]!.seq - 3}`);
    expect(after.entries.map((e) => e.message)).toEqual(['bulk-line 599', 'bulk-line 598', 'bulk-line 597']);
    expect((await page(`?after=${head + 10}`)).entries).toEqual([]);
  });

  it.each([
    ['?target=' + 'a'.repeat(129), 'log_filter_too_long'],
    ['?q=' + 'a'.repeat(129), 'log_filter_too_long'],
    ['?q=' + 'é'.repeat(129), 'log_filter_too_long'],
    ['?limit=0', 'bad_limit'],
    ['?limit=1001', 'bad_limit'],
    ['?limit=abc', 'bad_limit'],
    ['?level=trace', 'bad_level'],
    ['?after=-1', 'bad_after'],
  ])('400 for %s', async (q, code) => {
    const r = await root.get(`/api/v1/logs/plane${q}`);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: code });
  });

  it('128 characters of target and q are accepted (é counts as one)', async () => {
    expect(
      (await root.get(`/api/v1/logs/plane?target=${'a'.repeat(128)}&q=${encodeURIComponent('é'.repeat(128))}`)).status,
    ).toBe(200);
  });

  it('truncates a message to 4096 bytes and a target to 128 bytes', async () => {
    log()
      .child({ part: 'T'.repeat(200) })
      .info('trunc-mark ' + 'm'.repeat(6000));
    const [e] = await own('?q=trunc-mark');
    expect(Buffer.byteLength(e!.message)).toBe(4096);
    expect(Buffer.byteLength(e!.target)).toBe(128);
  });
});

describe('canary secrets never reach the ring, the API reply or stdout', () => {
  const secret = `tok-${CANARY}-zz`;

  it('request logs (query token, bearer header), login failures, node poll failures, free text', async () => {
    const mark = (await page()).head_seq;
    // request lines are debug lines (one per request): captured for this test
    t.plane.services.logs.setCaptureLevel('debug');
    // a session token in a query (the event feed takes one), and a wrong bearer
    await root.get(`/api/v1/events/stream?token=${secret}`);
    await x.anon.get(`/api/v1/logs/plane?token=${secret}&password=${secret}`, { authorization: `Bearer ${secret}` });
    // a failed login with the canary as password, and as login
    await x.anon.post('/api/v1/auth/login', { login: 'root', password: secret });
    await x.anon.post('/api/v1/auth/login', { login: secret, password: secret });
    // a node whose API token is the canary, polled while unreachable
    const node = await root.post('/api/v1/nodes', {
      name: `canary-node-${process.pid}`,
      url: 'http://127.0.0.1:9',
      api_token: secret,
      auth_backend_secret: secret,
    });
    expect(node.status, node.text).toBe(201);
    await t.plane.services.sweeper.sweep();
    // free text and fields of the plane's own lines
    log().warn(
      {
        password: secret,
        api_token: secret,
        auth_backend_secret: secret,
        s3: { access_key_id: 'AKIAIOSFODNN7EXAMPLE', secret_access_key: secret },
      },
      `camera source rtsp://cam:${secret}@10.1.1.1/ token=${secret}`,
    );
    log().error(`upstream said: Authorization: Bearer ${secret}`);

    t.plane.services.logs.setCaptureLevel('info');
    const p = await page(`?after=${mark}&limit=1000`);
    const text = JSON.stringify(p);
    // the paths did log (else the test proves nothing): the request lines with their query
    expect(text).toContain('/api/v1/events/stream?token=[redacted]');
    expect(text).toContain('camera source rtsp://cam:[redacted]@10.1.1.1/');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain('AKIAIOSFODNN7EXAMPLE');
    expect(t.logs.text).toContain('token=[redacted]');
    expect(t.logs.text).not.toContain(CANARY);
    expect(t.logs.text).not.toContain('AKIAIOSFODNN7EXAMPLE');
  });
});

describe('capture level', () => {
  it('changes live through the service; the ring admits debug lines afterwards', async () => {
    t.plane.services.logs.setCaptureLevel('debug');
    try {
      expect((await page()).capture_level).toBe('debug');
      log().child({ part: 'lvl' }).debug('now-debug-visible');
      expect(await own('?q=now-debug-visible')).toHaveLength(1);
    } finally {
      t.plane.services.logs.setCaptureLevel('info');
    }
    log().debug('debug-hidden-again');
    expect(await own('?q=debug-hidden-again')).toHaveLength(0);
  });
});

describe('RUST_LOG / ARGUS_LOG own the level', () => {
  it.each([['RUST_LOG'], ['ARGUS_LOG']] as const)(
    '%s: override true, source names it, a change is 409 rust_log_override',
    async (name) => {
      const p2 = await startPlane({ config: { logLevel: 'warn', logLevelSource: 'environment', logLevelEnv: name } });
      try {
        const su = await login(p2.plane.app);
        const r = await su.get('/api/v1/logs/plane');
        expect(r.body).toMatchObject({ capture_environment_override: true, capture_source: `environment ${name}` });
        let err: unknown;
        try {
          p2.plane.services.logs.setCaptureLevel('debug');
        } catch (e) {
          err = e;
        }
        expect(err).toMatchObject({ status: 409, code: 'rust_log_override' });
      } finally {
        await p2.close();
      }
    },
  );
});
