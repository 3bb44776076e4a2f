import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import postgres from 'postgres';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { eventId } from '../../../src/plane/events/log/events.ids.js';
import { parseSearch } from '../../../src/plane/events/feed/search.js';
import { tsQuery } from '../../../src/plane/events/feed/search.store.js';

let t: TestPlane;
let x: Tenants;
let cam1: string, cam2: string;
const ids: Record<string, string> = {};
const BASE = Date.now() - 3600_000;
const at = (i: number) => new Date(BASE + i * 1000).toISOString();

const q = async (c: Client, query: string, extra = '') =>
  c.get(`/api/v1/events?q=${encodeURIComponent(query)}${extra}`);
const names = (body: any) => body.rows.map((r: any) => Object.keys(ids).find((k) => ids[k] === r.id) ?? r.id);
const found = async (c: Client, query: string, extra = '') => {
  const r = await q(c, query, extra);
  expect(r.status, r.text).toBe(200);
  return names(r.body);
};

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  const cam = (admin: Client) => world.camera(admin);
  cam1 = await cam(x.a.admin);
  cam2 = await cam(x.a.admin);
  const camB = await cam(x.b.admin);
  expect(
    (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status,
  ).toBe(200);
  const doc = {
    detector_match: 'lpr.*',
    title: 'Number plate',
    fields: [
      { key: 'plate', source: '/plate', type: 'string' },
      { key: 'speed', source: '/speed', type: 'number' },
      { key: 'stolen', source: '/stolen', type: 'bool' },
    ],
  };
  expect((await x.a.admin.post('/api/v1/templates', { name: 'plates', doc })).status).toBe(201);
  expect((await x.b.admin.post('/api/v1/templates', { name: 'plates', doc })).status).toBe(201);
  const tok = (admin: Client) => world.moduleToken(admin);
  const modA = await tok(x.a.admin),
    modB = await tok(x.b.admin);
  const items: Array<[string, Record<string, unknown>]> = [
    [
      'p1',
      {
        detector: 'lpr.gate',
        camera_id: cam1,
        payload: { plate: 'AB123', speed: 50, stolen: true },
        subject_ref: 'red truck parked',
      },
    ],
    ['p2', { detector: 'lpr.gate', camera_id: cam2, payload: { plate: 'AB123', speed: 72 }, subject_ref: 'truck red' }],
    ['p3', { detector: 'lpr.exit', camera_id: cam1, payload: { plate: 'ZX 9', speed: 50.0 } }],
    ['m1', { detector: 'motion.zone', camera_id: cam1, subject_ref: 'red truck' }],
    ['d1', { detector: 'lpr.gate', camera_id: cam1, payload: { plate: 'AB123' }, severity: 'debug' }],
  ];
  const r = await modA.post('/api/v1/events', { events: items.map(([, e], i) => ({ ...e, occurred_at: at(i) })) });
  r.body.results.forEach((res: any, i: number) => {
    ids[items[i]![0]] = res.id;
  });
  ids.b1 = (
    await modB.post('/api/v1/events', {
      events: [{ detector: 'lpr.gate', camera_id: camB, occurred_at: at(9), payload: { plate: 'AB123' } }],
    })
  ).body.results[0].id;
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/v1/events?q=', () => {
  it('free words, phrases and field:value, newest first, within camera rights and the other filters', async () => {
    expect(await found(x.a.admin, 'truck')).toEqual(['m1', 'p2', 'p1']);
    expect(await found(x.a.admin, 'truck RED')).toEqual(['m1', 'p2', 'p1']);
    expect(await found(x.a.admin, '"red truck"')).toEqual(['m1', 'p1']);
    expect(await found(x.a.admin, 'plate:ab123')).toEqual(['p2', 'p1']);
    expect(await found(x.a.admin, 'plate:"zx 9"')).toEqual(['p3']);
    expect(await found(x.a.admin, 'speed:50')).toEqual(['p3', 'p1']);
    expect(await found(x.a.admin, 'speed:50.0')).toEqual(['p3', 'p1']);
    expect(await found(x.a.admin, 'stolen:true truck')).toEqual(['p1']);
    expect(await found(x.a.admin, 'plate:ab123 "truck red"')).toEqual(['p2']);
    expect(await found(x.a.admin, 'number plate speed:72')).toEqual(['p2']);
    expect(await found(x.a.admin, 'nothing:here')).toEqual([]);
    // the 'simple' parser keeps a dotted detector whole
    expect(await found(x.a.admin, 'lpr.exit')).toEqual(['p3']);
    expect(await found(x.a.admin, 'exit')).toEqual([]);
    // severity bounds skip events without severity, as in the feed
    expect(await found(x.a.admin, 'plate:ab123', '&severity=debug')).toEqual(['d1']);
    expect(await found(x.a.admin, 'truck', `&camera=${cam1}`)).toEqual(['m1', 'p1']);
    expect(await found(x.a.admin, 'truck', '&detector=lpr.*')).toEqual(['p2', 'p1']);
    // an operator never finds an event of an ungranted camera; another organisation's are absent
    expect(await found(x.a.operator, 'plate:ab123')).toEqual(['p1']);
    expect(await found(x.a.operator, 'truck')).toEqual(['m1', 'p1']);
    expect(await found(x.b.admin, 'plate:ab123')).toEqual(['b1']);
    expect(await found(x.root, 'plate:ab123')).toEqual(['b1', 'p2', 'p1']);
  });

  it('pages with after_ts/after_id over the same candidates; a stream cursor', async () => {
    const p1 = await q(x.a.admin, 'truck', '&limit=2');
    expect(names(p1.body)).toEqual(['m1', 'p2']);
    expect(p1.body.stream_cursor).toMatch(/^g:\d+$/);
    expect(p1.body.next_id).toBe(ids.p2);
    const p2 = await q(
      x.a.admin,
      'truck',
      `&limit=2&after_ts=${encodeURIComponent(p1.body.next_ts)}&after_id=${p1.body.next_id}`,
    );
    expect([names(p2.body), p2.body.next_ts]).toEqual([['p1'], null]);
  });

  it('400 event_search_too_short for a word with fewer than two letters or digits', async () => {
    for (const bad of ['a', 'truck a', '--', '"a"', '', '   ', 'plate:""', 'é']) {
      const r = await q(x.a.admin, bad);
      expect([r.status, r.body], JSON.stringify(bad)).toEqual([400, { error: 'event_search_too_short' }]);
    }
    expect((await q(x.a.admin, 'ab')).status).toBe(200);
    expect((await q(x.a.admin, 'é1')).status).toBe(200);
    expect(parseSearch('Plate:"AB 1" "x y" w1')).toEqual({
      words: ['w1'],
      phrases: ['x y'],
      fields: [{ key: 'plate', values: ['ab 1'] }],
    });
    // feed errors come first, as without q
    expect((await q(x.a.admin, 'a', '&after_id=' + ids.p1)).body).toEqual({ error: 'bad_event_cursor' });
  });

  it('429 event_search_busy with retry_after 1 when the 4 search slots are taken', async () => {
    const search = t.plane.services.events.events.search;
    const held = [search.take(), search.take(), search.take(), search.take()];
    const r = await q(x.a.admin, 'truck');
    expect([r.status, r.body, r.headers['retry-after']]).toEqual([
      429,
      { error: 'event_search_busy', retry_after: 1 },
      '1',
    ]);
    // the feed without q is not gated
    expect((await x.a.admin.get('/api/v1/events')).status).toBe(200);
    held.forEach((release) => release());
    expect((await q(x.a.admin, 'truck')).status).toBe(200);
  });

  it('422 event_search_too_broad with candidate_limit when more than 10000 events match', async () => {
    const db = t.db.database.db;
    const orgId = x.b.orgId;
    const ts = Date.now() - 7200_000;
    const rows = Array.from({ length: 10_001 }, (_, i) => eventId(ts + i));
    await sql`insert into events (id, occurred_at, seq, org_id, detector, search)
      select u.id, ${new Date(ts).toISOString()}::timestamptz + (u.n - 1) * interval '1 millisecond', nextval('event_seq'), ${orgId}::uuid, 'bulk', to_tsvector('simple', 'everywhere')
      from unnest(${rows}::uuid[]) with ordinality as u(id, n)`.execute(db);
    const r = await q(x.b.admin, 'everywhere');
    expect([r.status, r.body]).toEqual([422, { error: 'event_search_too_broad', candidate_limit: 10000 }]);
    // navigate moves inside the same search result: the same bound
    const anchor = new Date().toISOString();
    const nav = await x.b.admin.get(
      `/api/v1/events/navigate?q=everywhere&anchor=${encodeURIComponent(anchor)}&anchor_id=${eventId(Date.now())}&direction=next`,
    );
    expect([nav.status, nav.body]).toEqual([422, { error: 'event_search_too_broad', candidate_limit: 10000 }]);
    // narrower filters bring it under the limit
    expect(
      (await q(x.b.admin, 'everywhere', `&to=${encodeURIComponent(new Date(ts + 5000).toISOString())}`)).body.rows,
    ).toHaveLength(100);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    '503 event_search_deadline with retry_after 1 when the statement time-out fires',
    async () => {
      const search = t.plane.services.events.events.search;
      const conn = postgres(t.db.url!, { max: 1, onnotice: () => {} });
      search.deadlineMs = 300;
      try {
        const reserved = await conn.reserve();
        await reserved`begin`;
        await reserved`lock table events in access exclusive mode`;
        const r = await q(x.a.admin, 'truck');
        expect([r.status, r.body, r.headers['retry-after']]).toEqual([
          503,
          { error: 'event_search_deadline', retry_after: 1 },
          '1',
        ]);
        const anchor = new Date().toISOString();
        for (const n of [
          await x.a.admin.get(
            `/api/v1/events/navigate?q=truck&anchor=${encodeURIComponent(anchor)}&anchor_id=${eventId(Date.now())}&direction=next`,
          ),
          await x.a.admin.post('/api/v1/events/reconcile?q=truck', {
            candidates: [{ id: ids.p1, occurred_at: at(0) }],
          }),
        ])
          expect([n.status, n.body, n.headers['retry-after']]).toEqual([
            503,
            { error: 'event_search_deadline', retry_after: 1 },
            '1',
          ]);
        await reserved`rollback`;
        reserved.release();
      } finally {
        search.deadlineMs = 5000;
        await conn.end();
      }
      expect((await q(x.a.admin, 'truck')).status).toBe(200);
    },
  );

  it.skipIf(!process.env.TEST_DATABASE_URL)('the search uses the GIN index (no scan of the table)', async () => {
    const db = t.db.database.db;
    const plan = await db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      return sql<{
        'QUERY PLAN': string;
      }>`explain select id from events e where e.search @@ ${tsQuery(parseSearch('plate:ab123 truck "red truck"'))}`.execute(
        trx,
      );
    });
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Bitmap Index Scan on events_\w*search\w*/);
  });
});
