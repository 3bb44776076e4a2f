import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { startPlane, ManualClock, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, unique, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { untilMidnightUtc, parseEventCursor } from '../../../src/plane/events/stream/stream.service.js';
import { eventId, timeOfEventId } from '../../../src/plane/events/log/events.ids.js';
import { eventsStore } from '../../../src/plane/events/log/events.store.js';

let t: TestPlane;
let x: Tenants;
let base: string;
let cam1: string, cam2: string, camB: string;
let modA: Client, modB: Client;
const clock = new ManualClock(Date.now());

const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });
const open = (c: Client, qs = '', headers: Record<string, string> = {}) => SseReader.open(`${base}/api/v1/events/stream${qs}`, { ...auth(c), ...headers });
const now = () => new Date(clock.now()).toISOString();

async function send(mod: Client, items: Array<Record<string, unknown>>): Promise<{ ids: string[]; cursor: string }> {
  const r = await mod.post('/api/v1/events', { events: items.map((i) => ({ occurred_at: now(), ...i })) });
  expect(r.status, r.text).toBe(200);
  return { ids: r.body.results.map((i: any) => { expect(i.id, JSON.stringify(i)).toBeDefined(); return i.id as string; }), cursor: r.body.stream_cursor };
}
const head = async () => (await x.root.get('/api/v1/events?limit=1')).body.stream_cursor as string;
const seqOf = (cursor: string) => parseEventCursor(cursor)!.seq;
/** Waits until this process's ring holds everything committed (notices travel after commit). */
async function caughtUp() {
  const written = seqOf(await head());
  while (t.plane.services.events.ring.head < written) await new Promise((r) => setTimeout(r, 10));
}

// Document 2's frame fields; reconcile_required only when true.
const FRAME_KEYS = ['camera_id', 'camera_name', 'category', 'confidence', 'deleted', 'detector', 'detector_title', 'ended_at', 'ext_id', 'id',
  'interval', 'list_values', 'node_id', 'node_name', 'occurred_at', 'org_id', 'seq', 'severity', 'starred', 'subject_ref', 'subject_type',
  'template_id', 'updated'];

beforeAll(async () => {
  t = await startPlane({ clock, config: { live: { globalCapacity: 64, perPrincipal: 32, heartbeatMs: 200, ringSize: 50, lagBytes: 1 << 20 } } });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  const cam = (admin: Client) => world.camera(admin);
  cam1 = await cam(x.a.admin); cam2 = await cam(x.a.admin); camB = await cam(x.b.admin);
  expect((await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status).toBe(200);
  const tok = (admin: Client) => world.moduleToken(admin, 1_000_000);
  modA = await tok(x.a.admin); modB = await tok(x.b.admin);
});
afterAll(async () => { await t?.close(); });

describe('GET /api/v1/events/stream', () => {
  it('sends live frames: id g:<seq>, data only, the summary fields, severity as a number, debug included, heartbeats', async () => {
    const s = await open(x.a.admin);
    expect(s.status).toBe(200);
    expect(s.headers!.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(s.headers!.get('cache-control')).toBe('no-store');
    const { ids } = await send(modA, [
      { detector: 'lpr.plate', camera_id: cam1, severity: 'debug', subject_type: 'plate', subject_ref: 'AB123', ext_id: unique('x'), confidence: 87.5 },
      { detector: 'motion', camera_id: cam2, severity: 'critical', interval: true, detector_title: { en: 'Motion' } },
    ]);
    await s.until((r) => r.events.length >= 2 && r.comments.includes(''));
    const [a, b] = s.events;
    expect(a!.id).toBe(`g:${a!.data.seq}`);
    expect(b!.data.seq).toBeGreaterThan(a!.data.seq);
    expect(Object.keys(a!.data).sort()).toEqual(FRAME_KEYS);
    const cam = (await x.a.admin.get(`/api/v1/cameras/${cam1}`)).body;
    expect(a!.data).toMatchObject({
      id: ids[0], org_id: x.a.orgId, camera_id: cam1, camera_name: cam.name, node_id: cam.node_id, detector: 'lpr.plate', severity: 0,
      category: 'camera', interval: false, subject_type: 'plate', subject_ref: 'AB123', confidence: 87.5, starred: false, list_values: [], ended_at: null,
    });
    expect(b!.data).toMatchObject({ id: ids[1], severity: 4, interval: true, detector_title: { en: 'Motion' } });
    expect(s.raw).not.toMatch(/^event:/m);
    expect(s.events.every((e) => !e.replay)).toBe(true);
    s.close();
  });

  it('camera rights per frame: an operator gets granted cameras only; another organisation nothing; org narrowing; cross_org', async () => {
    const op = await open(x.a.operator);
    const adminB = await open(x.b.admin);
    const rootB = await open(x.root, `?org=${x.b.orgId}`);
    const { ids } = await send(modA, [{ detector: 'd', camera_id: cam2 }, { detector: 'd' }, { detector: 'd', camera_id: cam1 }]);
    const [idB] = (await send(modB, [{ detector: 'd', camera_id: camB }])).ids;
    await op.until((r) => r.events.some((e) => e.data.id === ids[2]));
    await adminB.until((r) => r.events.some((e) => e.data.id === idB));
    await rootB.until((r) => r.events.some((e) => e.data.id === idB));
    await new Promise((r) => setTimeout(r, 150));
    expect(op.events.map((e) => e.data.id)).toEqual([ids[2]]);
    expect(adminB.events.map((e) => e.data.id)).toEqual([idB]);
    expect(rootB.events.map((e) => e.data.id)).toEqual([idB]);
    for (const s of [op, adminB, rootB]) s.close();
    const foreign = await open(x.a.admin, `?org=${x.b.orgId}`);
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'cross_org' }]);
  });

  it('follows grant changes at once: a revoked camera stops, a granted one starts', async () => {
    const op = await open(x.a.operator);
    await new Promise((r) => setTimeout(r, 50));
    expect((await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam2], tag_ids: [] })).status).toBe(200);
    const { ids } = await send(modA, [{ detector: 'r', camera_id: cam1 }, { detector: 'r', camera_id: cam2 }]);
    await op.until((r) => r.events.some((e) => e.data.id === ids[1]));
    expect(op.events.map((e) => e.data.id)).toEqual([ids[1]]);
    expect((await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status).toBe(200);
    const again = await send(modA, [{ detector: 'r', camera_id: cam2 }, { detector: 'r', camera_id: cam1 }]);
    await op.until((r) => r.events.some((e) => e.data.id === again.ids[1]));
    expect(op.events.map((e) => e.data.id)).toEqual([ids[1], again.ids[1]]);
    op.close();
  });

  it('replays after a feed cursor with delivery=replay, then goes live; the header wins over the parameter', async () => {
    const cursor = await head();
    const { ids } = await send(modA, [{ detector: 'p1', camera_id: cam1 }, { detector: 'p2', camera_id: cam1 }, { detector: 'p3' }]);
    await caughtUp();
    const s = await open(x.a.admin, '?last_event_id=g:0', { 'last-event-id': cursor });
    await s.until((r) => r.events.length >= 3);
    expect(s.events.map((e) => [e.data.id, e.replay])).toEqual(ids.map((id) => [id, true]));
    expect(s.raw).toMatch(/^: delivery=replay\nid: g:\d+\ndata: /m);
    const live = await send(modA, [{ detector: 'p4', camera_id: cam1 }]);
    await s.until((r) => r.events.length >= 4);
    expect([s.events[3]!.data.id, s.events[3]!.replay]).toEqual([live.ids[0], false]);
    s.close();

    await caughtUp();
    const byParam = await open(x.a.operator, `?last_event_id=${cursor}`);
    await byParam.until((r) => r.events.length >= 2);
    await byParam.until((r) => r.events.length >= 3);
    expect(byParam.events.map((e) => [e.data.id, e.replay])).toEqual([[ids[0], true], [ids[1], true], [live.ids[0], true]]);
    byParam.close();
  });

  it('the intake reply cursor resumes just before its batch', async () => {
    const first = await send(modA, [{ detector: 'i1' }, { detector: 'i2' }]);
    const s = await open(x.a.admin, '', { 'last-event-id': first.cursor });
    await s.until((r) => r.events.length >= 2);
    expect(s.events.slice(0, 2).map((e) => e.data.id)).toEqual(first.ids);
    s.close();
  });

  it('the feed cursor is taken before the page: an event committed while the page is assembled is not lost', async () => {
    const db = t.db.database.db;
    // An in-flight writer holds a drawn stream position uncommitted while the feed starts.
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const id = eventId(clock.now());
    let drawn = false;
    const writer = db.transaction().execute(async (trx) => {
      await eventsStore.beginWrite(trx);
      await eventsStore.insertBatch(trx, x.a.orgId, null, [{
        id, occurred_at: new Date(timeOfEventId(id)!.getTime()), camera_id: null, node_id: null, category: 'camera', detector: 'slow',
        detector_title: null, severity: 2, confidence: null, interval: false, ended_at: null, template_id: null, subject_type: null,
        subject_ref: null, ext_id: null, list_values: '[]', fields: '{}', payload: '{}', attachments: '[]', search_text: 'slow', search_tokens: [],
      }]);
      drawn = true;
      await gate;
    });
    while (!drawn) await new Promise((r) => setTimeout(r, 5));
    let answered = false;
    const page = x.a.admin.get('/api/v1/events?detector=nothing-matches').then((r) => { answered = true; return r; });
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false); // the cursor waits for the writer in flight
    release();
    await writer;
    const body = (await page).body;
    expect(body.rows).toEqual([]);
    const s = await open(x.a.admin, '', { 'last-event-id': body.stream_cursor });
    const later = await send(modA, [{ detector: 'after' }]);
    await s.until((r) => r.events.some((e) => e.data.id === later.ids[0]));
    // The committed row lies at or below the cursor: a page query after the cursor sees it.
    const row = await sql<{ seq: number }>`select seq from events where id = ${id}`.execute(db);
    expect(Number(row.rows[0]!.seq)).toBeLessThanOrEqual(seqOf(body.stream_cursor));
    s.close();
  });

  it('star and close changes arrive as updated frames (a star leaves out interval); big frames carry reconcile_required', async () => {
    const s = await open(x.a.admin);
    const { ids } = await send(modA, [{ detector: 'itv', camera_id: cam1, interval: true }]);
    await s.until((r) => r.events.some((e) => e.data.id === ids[0]));
    expect((await x.a.admin.post(`/api/v1/events/${ids[0]}/star`)).status).toBe(200);
    await s.until((r) => r.events.filter((e) => e.data.id === ids[0]).length >= 2);
    const star = s.events.filter((e) => e.data.id === ids[0])[1]!.data;
    expect(star).toMatchObject({ updated: true, deleted: false, starred: true });
    expect(star).not.toHaveProperty('interval');
    expect((await modA.patch(`/api/v1/events/${ids[0]}`, { ended_at: now() })).status).toBe(200);
    await s.until((r) => r.events.filter((e) => e.data.id === ids[0]).length >= 3);
    const closed = s.events.filter((e) => e.data.id === ids[0])[2]!.data;
    expect(closed).toMatchObject({ updated: true, interval: true, ended_at: expect.any(String), starred: true });
    expect(closed.seq).toBeGreaterThan(star.seq);

    const title = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`x${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`, 'x'.repeat(256)]));
    const big = await send(modA, [{ detector: 'big', camera_id: cam1, detector_title: title, subject_ref: 'S1' }]);
    await s.until((r) => r.events.some((e) => e.data.id === big.ids[0]));
    const f = s.events.find((e) => e.data.id === big.ids[0])!;
    expect(f.data).toMatchObject({ reconcile_required: true, detector_title: null, subject_ref: null, camera_id: cam1 });
    expect(Buffer.byteLength(f.raw)).toBeLessThan(8192);
    s.close();
  });

  it('rows read from the table (a batch too big to carry inline) arrive in order, replayable', async () => {
    const cursor = await head();
    const s = await open(x.a.admin);
    const { ids } = await send(modA, Array.from({ length: 200 }, (_, i) => ({ detector: `bulk${i}`, camera_id: cam1, payload: { i } })));
    await s.until((r) => r.events.filter((e) => ids.includes(e.data.id)).length === 200);
    const got = s.events.filter((e) => ids.includes(e.data.id));
    expect(got.map((e) => e.data.id)).toEqual(ids);
    expect(got.every((e, i) => i === 0 || e.data.seq > got[i - 1]!.data.seq)).toBe(true);
    expect(got[0]!.data).toHaveProperty('interval', false);
    // updated and deleted are always sent; only reconcile_required is absent when false
    expect(got[0]!.data).toMatchObject({ updated: false, deleted: false });
    expect(got[0]!.data).not.toHaveProperty('reconcile_required');
    s.close();
    const r = await open(x.a.admin, '', { 'last-event-id': cursor });
    await r.until((q) => q.events.length >= 200);
    expect(r.events.slice(0, 200).map((e) => e.data.id)).toEqual(ids);
    r.close();
  });

  it.each([['no prefix', '12'], ['a damaged number', 'g:x1'], ['a bad purge day', 'd2026:1'], ['the future', 'g:999999999'],
    ['a purge day that does not apply', 'd20260101:1']])('ends with resync-required for a cursor with %s', async (_n, cursor) => {
    const s = await open(x.a.admin, '', { 'last-event-id': cursor });
    await s.until((r) => r.ended);
    expect(s.events).toEqual([]);
    expect(s.raw).toBe(': resync-required\n\n');
  });

  it('ends with resync-required when the cursor was evicted from the 512-frame ring', async () => {
    const old = await head();
    for (let i = 0; i < 2; i++) await send(modA, Array.from({ length: 300 }, () => ({ detector: 'evict' })));
    await caughtUp();
    const s = await open(x.a.admin, '', { 'last-event-id': old });
    await s.until((r) => r.ended);
    expect(s.raw.endsWith(': resync-required\n\n')).toBe(true);
    expect(s.events).toEqual([]);
    // 512 back is still inside
    const inside = `g:${seqOf(await head()) - 512}`;
    const last = seqOf(await head());
    const ok = await open(x.a.admin, '', { 'last-event-id': inside });
    // positions may be empty (a row moved on by a change), so up to 512 frames
    await ok.until((r) => r.events.some((e) => e.data.seq === last));
    expect(ok.ended).toBe(false);
    expect(ok.events.every((e) => e.replay)).toBe(true);
    ok.close();
  });

  it('ends a lagging subscriber with a terminal resync-required', async () => {
    const me = await login(t.plane.app);
    const principal = await t.plane.services.auth.authenticate(me.token!, { ip: '127.0.0.1', userAgent: 'test' });
    const chunks: string[] = [];
    const raw = new Writable({ highWaterMark: 1, write(chunk, _e, _cb) { chunks.push(String(chunk)); } }) as any;
    raw.writeHead = () => raw; raw.flushHeaders = () => {};
    await t.plane.services.events.stream.stream({ headers: {}, raw: { socket: { setNoDelay() {} } } } as any, { raw, hijack() {} } as any, principal, {});
    for (let i = 0; i < 20 && !raw.writableEnded; i++) await send(modA, Array.from({ length: 100 }, () => ({ detector: 'lag', subject_ref: 'y'.repeat(200) })));
    await new Promise((r) => setTimeout(r, 200));
    expect(raw.writableEnded).toBe(true);
    const queued = (raw._writableState.getBuffer() as Array<{ chunk: unknown }>).map((b) => String(b.chunk));
    expect([...chunks, ...queued].join('')).toMatch(/: resync-required\n\n$/);
    // its slot is free again
    expect([...(t.plane.services.streams as any).open].some((x: any) => x.principal.sessionId === principal.sessionId && !x.closed)).toBe(false);
  });

  it('ends at midnight UTC by the plane clock', async () => {
    const real = clock.now();
    clock.set(real + untilMidnightUtc(real) - 300);
    try {
      const s = await open(await login(t.plane.app));
      expect(s.status).toBe(200);
      await s.until((r) => r.ended, 3000);
      expect(s.raw).not.toContain('resync-required');
    } finally { clock.set(real); }
    expect(untilMidnightUtc(Date.UTC(2026, 0, 15, 23, 59, 59, 900))).toBe(100);
    expect(untilMidnightUtc(Date.UTC(2026, 0, 16))).toBe(86_400_000);
  });

  it('caps streams at 32 per user (live_stream_capacity)', async () => {
    const me = x.b.operator;
    const all: SseReader[] = [];
    for (let i = 0; i < 32; i++) all.push(await open(me));
    const over = await open(me);
    expect([over.status, over.body, over.headers!.get('retry-after')]).toEqual([429, { error: 'live_stream_capacity', scope: 'principal', retry_after: 2 }, '2']);
    // a slot is freed when the response body closes
    all.pop()!.close();
    let again: SseReader | null = null;
    for (let i = 0; i < 50 && again?.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await open(me);
    }
    expect(again!.status).toBe(200);
    all.push(again!);
    // the process capacity (64 in this test) counts every principal's streams
    const streams = t.plane.services.streams;
    const others: SseReader[] = [];
    for (let i = 0; i < 32 && streams.count < 64; i++) others.push(await open(x.b.admin));
    expect(streams.count).toBe(64);
    const full = await open(x.a.admin);
    expect([full.status, full.body]).toEqual([429, { error: 'live_stream_capacity', scope: 'global', retry_after: 2 }]);
    for (const s of [...all, ...others]) s.close();
  });
});

describe('event stream across processes', () => {
  it('a process that starts later fills its ring from the table: changed rows replay as updated frames', async () => {
    const cursor = await head();
    const { ids } = await send(modA, [{ detector: 'late-ring', camera_id: cam1 }, { detector: 'late-ring-2', camera_id: cam1 }]);
    expect((await x.a.admin.post(`/api/v1/events/${ids[0]}/star`)).status).toBe(200);
    const three = await startPlane({ db: t.db, clock });
    try {
      const url3 = await three.plane.app.listen({ host: '127.0.0.1', port: 0 });
      const s = await SseReader.open(`${url3}/api/v1/events/stream`, { ...auth(x.a.admin), 'last-event-id': cursor });
      await s.until((r) => r.events.length >= 2);
      expect(s.events.map((e) => [e.data.id, e.replay, e.data.updated ?? false])).toEqual([[ids[1], true, false], [ids[0], true, true]]);
      expect(s.events[1]!.data).toMatchObject({ starred: true, interval: false });
      s.close();
    } finally { await three.close(); }
  });

  it('delivers a batch written through one plane process to a stream on another, with the same cursors', async () => {
    const two = await startPlane({ db: t.db, clock });
    try {
      const url2 = await two.plane.app.listen({ host: '127.0.0.1', port: 0 });
      const s2 = await SseReader.open(`${url2}/api/v1/events/stream`, auth(x.a.admin));
      const s1 = await open(x.a.admin);
      const { ids } = await send(modA, [{ detector: 'xp1', camera_id: cam1 }, { detector: 'xp2' }]);
      const big = await send(modA, Array.from({ length: 100 }, (_, i) => ({ detector: `xpb${i}` })));
      for (const s of [s1, s2]) await s.until((r) => r.events.filter((e) => [...ids, ...big.ids].includes(e.data.id)).length === 102);
      const seen = (s: SseReader) => s.events.map((e) => `${e.id}/${e.data.id}`);
      expect(seen(s2)).toEqual(seen(s1));
      s1.close(); s2.close();
    } finally { await two.close(); }
  });
});
