import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, freshDatabase, type TestPlane, type TestDb } from '../harness.js';
import { Client, login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { seedOrg, seedUser } from '../fixtures.js';

let t: TestPlane;
let base: string;
let root: Client, adminA: Client;
let orgA: string, orgB: string;
let adminBCreds: { login: string; password: string };

const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });
async function stream(c: Client, qs = '', headers: Record<string, string> = {}) {
  return SseReader.open(`${base}/api/v1/audit/stream${qs}`, { ...auth(c), ...headers });
}
const head = async () => (await root.get('/api/v1/audit?limit=1')).body.stream_cursor as string;
const n = (cursor: string) => Number(cursor.slice(2));
async function ringHolds(seq: number) {
  for (let i = 0; i < 200 && t.plane.services.ring.head < seq; i++) await new Promise((r) => setTimeout(r, 10));
  expect(t.plane.services.ring.head).toBeGreaterThanOrEqual(seq);
}

beforeAll(async () => {
  t = await startPlane({
    config: {
      live: { globalCapacity: 40, perPrincipal: 32, heartbeatMs: 200, ringSize: 50, lagBytes: 1 << 20 },
      loginThrottle: { attempts: 1000, windowSecs: 60 },
    },
  });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  const db = t.db.database.db;
  orgA = await seedOrg(db, 'org-a');
  orgB = await seedOrg(db, 'org-b');
  adminA = await login(t.plane.app, await seedUser(db, orgA, 'admin', 'admin-a'));
  adminBCreds = await seedUser(db, orgB, 'admin', 'admin-b');
  root = await login(t.plane.app);
});
afterAll(async () => {
  await t?.close();
});

/** Waits for the plane to have seen the closes (a loaded machine takes its time; no fixed sleep). */
async function streamsDownTo(n: number, within = 30_000): Promise<void> {
  const end = Date.now() + within;
  while (t.plane.services.streams.count > n) {
    if (Date.now() > end) throw new Error(`streams still ${t.plane.services.streams.count}, want ${n}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('GET /api/v1/audit/stream', () => {
  it('sends live frames with id g:<n>, data only, no params or user_agent, and heartbeats', async () => {
    const s = await stream(root);
    expect(s.status).toBe(200);
    expect(s.headers!.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.headers!.get('x-content-type-options')).toBe('nosniff');
    await login(t.plane.app, adminBCreds);
    await s.until((r) => r.events.some((e) => e.data.action === 'auth.login' && e.data.actor_name === 'admin-b'));
    await s.until((r) => r.comments.includes(''));
    const e = s.events.find((x) => x.data.action === 'auth.login')!;
    expect(e.id).toBe(`g:${e.data.seq}`);
    expect(Object.keys(e.data).sort()).toEqual([
      'action',
      'actor_id',
      'actor_name',
      'actor_role',
      'ended_at',
      'id',
      'ip',
      'node_id',
      'object_id',
      'object_name',
      'object_type',
      'occurred_at',
      'org_id',
      'seq',
      'updated',
    ]);
    expect(e.data.updated).toBe(false);
    expect(s.raw).not.toMatch(/^event:/m);
    // The heartbeat is a comment line holding only a colon.
    expect(s.raw).toMatch(/(^|\n):\n\n/);
    expect(e.replay).toBe(false);
    s.close();
  });

  it('replays after the cursor with delivery=replay, then goes live; the header wins over the parameter', async () => {
    const cursor = await head();
    await login(t.plane.app, adminBCreds);
    await login(t.plane.app, adminBCreds);
    // Records reach the ring by NOTIFY after commit; a record not in it yet would come live, unmarked.
    await ringHolds(n(await head()));
    const s = await stream(root, `?last_event_id=g:0`, { 'last-event-id': cursor });
    await s.until((r) => r.events.length >= 2);
    expect(s.events.slice(0, 2).every((e) => e.replay && n(e.id!) > n(cursor))).toBe(true);
    expect(s.events[0]!.data.seq).toBeLessThan(s.events[1]!.data.seq);
    await login(t.plane.app, adminBCreds);
    await s.until((r) => r.events.length >= 3);
    expect(s.events[2]!.replay).toBe(false);
    s.close();

    const byParam = await stream(root, `?last_event_id=${cursor}`);
    await byParam.until((r) => r.events.length >= 3);
    expect(byParam.events.slice(0, 3).every((e) => e.replay)).toBe(true);
    byParam.close();
  });

  it.each([
    ['no prefix', '12'],
    ['non-numeric tail', 'g:x1'],
    ['the future', 'g:99999999'],
  ])('ends with resync-required for a cursor with %s', async (_n, cursor) => {
    const s = await stream(root, '', { 'last-event-id': cursor });
    await s.until((r) => r.ended);
    expect(s.comments).toContain('resync-required');
    expect(s.events).toEqual([]);
  });

  it('ends with resync-required when the cursor was evicted from the ring', async () => {
    const old = await head();
    for (let i = 0; i < 55; i++)
      await new Client(t.plane.app).post('/api/v1/auth/login', { login: `ghost${i}`, password: 'nope-nope' });
    const s = await stream(root, '', { 'last-event-id': old });
    await s.until((r) => r.ended);
    expect(s.raw.trim().endsWith(': resync-required')).toBe(true);
  });

  it('delivers a closed record as an updated frame', async () => {
    const s = await stream(root);
    const rows = (await root.get('/api/v1/audit?action=auth.login&limit=1')).body.rows;
    const row = rows[0];
    await t.db.database.db
      .transaction()
      .execute((trx) => t.plane.services.audit.close(trx, row.id, new Date(row.occurred_at)));
    await s.until((r) => r.events.some((e) => e.data.id === row.id));
    const f = s.events.find((e) => e.data.id === row.id)!;
    expect(f.data.updated).toBe(true);
    expect(f.data.ended_at).not.toBeNull();
    s.close();
  });

  it('shows an organisation administrator only its own organisation; a foreign org is cross_org', async () => {
    const s = await stream(adminA);
    await login(t.plane.app, adminBCreds);
    const probe = await login(t.plane.app, { login: 'admin-a', password: 'seed-password-1' });
    await s.until((r) => r.events.some((e) => e.data.object_id && e.data.actor_name === 'admin-a'));
    expect(s.events.every((e) => e.data.org_id === orgA)).toBe(true);
    s.close();
    await probe.post('/api/v1/auth/logout');
    const foreign = await stream(adminA, `?org=${orgB}`);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: 'cross_org' });
  });

  it('caps streams at 32 per user and at the process capacity, freeing a slot when the body closes', async () => {
    const me = await login(t.plane.app);
    const open: SseReader[] = [];
    for (let i = 0; i < 32; i++) open.push(await stream(me));
    expect(open.every((s) => s.status === 200)).toBe(true);
    const over = await stream(me);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: 'live_stream_capacity', scope: 'principal', retry_after: 2 });
    expect(over.headers!.get('retry-after')).toBe('2');
    const before = t.plane.services.streams.count;
    open.pop()!.close();
    await streamsDownTo(before - 1);
    const again = await stream(me);
    expect(again.status).toBe(200);
    open.push(again);

    // The process capacity in this test is 40.
    const others: SseReader[] = [];
    for (let i = 0; i < 8; i++) others.push(await stream(adminA));
    const global = await stream(adminA);
    expect(global.status).toBe(429);
    expect(global.body).toEqual({ error: 'live_stream_capacity', scope: 'global', retry_after: 2 });
    for (const s of [...open, ...others]) s.close();
    await streamsDownTo(0);
    expect(t.plane.services.streams.count).toBe(0);
  });

  it('lets a superadmin narrow the stream with org', async () => {
    const s = await stream(root, `?org=${orgB}`);
    expect(s.status).toBe(200);
    await login(t.plane.app, { login: 'admin-a', password: 'seed-password-1' });
    const probe = await login(t.plane.app, adminBCreds);
    const sid = (await probe.get('/api/v1/auth/me')).body.session.id;
    await s.until((r) => r.events.some((e) => e.data.object_id === sid));
    expect(s.events.length).toBeGreaterThan(0);
    expect(s.events.every((e) => e.data.org_id === orgB)).toBe(true);
    s.close();
  });

  it('counts the 32 streams per user over all of its sessions and over every kind of SSE stream', async () => {
    const one = await login(t.plane.app, adminBCreds);
    const two = await login(t.plane.app, adminBCreds);
    const open: SseReader[] = [];
    for (let i = 0; i < 16; i++) open.push(await stream(one));
    for (let i = 0; i < 15; i++) open.push(await stream(two));
    open.push(await SseReader.open(`${base}/api/v1/events/stream`, auth(two)));
    expect(open.map((s) => s.status)).toEqual(Array(32).fill(200));
    for (const [c, url] of [
      [one, '/api/v1/audit/stream'],
      [two, '/api/v1/events/stream'],
    ] as const) {
      const over = await SseReader.open(`${base}${url}`, auth(c));
      expect(over.status, url).toBe(429);
      expect(over.body).toEqual({ error: 'live_stream_capacity', scope: 'principal', retry_after: 2 });
      expect(over.headers!.get('retry-after')).toBe('2');
    }
    // Another user is not affected.
    const other = await stream(root);
    expect(other.status).toBe(200);
    for (const s of [...open, other]) s.close();
    await streamsDownTo(0);
    expect(t.plane.services.streams.count).toBe(0);
  });

  it('ends the stream at logout of its session', async () => {
    const me = await login(t.plane.app);
    const s = await stream(me);
    await me.post('/api/v1/auth/logout');
    await s.until((r) => r.ended);
  });
});

describe('audit stream across restarts and processes', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('keeps g:<n> cursors valid across a plane restart', async () => {
    const first = await startPlane({ db });
    const c = await login(first.plane.app);
    const cursor = (await c.get('/api/v1/audit?limit=1')).body.stream_cursor;
    await login(first.plane.app);
    await first.close();

    const second = await startPlane({ db });
    const url = await second.plane.app.listen({ host: '127.0.0.1', port: 0 });
    const c2 = await login(second.plane.app);
    const s = await SseReader.open(`${url}/api/v1/audit/stream`, { ...auth(c2), 'last-event-id': cursor });
    await s.until((r) => r.events.length >= 2);
    expect(s.events[0]!.replay).toBe(true);
    expect(s.events[0]!.data.action).toBe('auth.login');
    s.close();
    await second.close();
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'delivers a record written through one process to a stream on another',
    async () => {
      const one = await startPlane({ db });
      const two = await startPlane({ db });
      const url = await two.plane.app.listen({ host: '127.0.0.1', port: 0 });
      const c2 = await login(two.plane.app);
      const s = await SseReader.open(`${url}/api/v1/audit/stream`, auth(c2));
      const c1 = await login(one.plane.app);
      const me = (await c1.get('/api/v1/auth/me')).body.session.id;
      await s.until((r) => r.events.some((e) => e.data.object_id === me));
      s.close();
      await one.close();
      await two.close();
    },
  );
});
