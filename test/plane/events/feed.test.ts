import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, NOT_FOUND, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { eventId } from '../../../src/plane/events/log/events.ids.js';
import { sendEvents } from '../fixtures.js';

let t: TestPlane;
let x: Tenants;
let cam1: string, cam2: string, camB: string, tagId: string;
const ids: Record<string, string> = {};
const BASE = Date.now() - 3600_000;
const at = (i: number) => new Date(BASE + i * 1000).toISOString();

// Org A: e0..e7 on cam1 / cam2 / no camera; org B: b0.
const A_EVENTS: Array<[string, Record<string, unknown>]> = [
  ['e0', { detector: 'lpr.plate', camera: 1, severity: 'info' }],
  ['e1', { detector: 'lpr.plate_x', camera: 1, severity: 'debug' }],
  ['e2', { detector: 'motion', camera: 2, severity: 'warning' }],
  ['e3', { detector: 'lprXplate', camera: 1 }],
  ['e4', { detector: 'motion', camera: 1, severity: 4, interval: true }],
  ['e5', { detector: 'motion', severity: 'error', interval: true, ended: true }],
  ['e6', { detector: 'lpr.face', camera: 1, severity: 0 }],
  ['e7', { detector: 'lpr.plate', camera: 2, severity: 'critical' }],
];

const send = sendEvents;
const feed = async (c: Client, q = '') => {
  const r = await c.get(`/api/v1/events${q}`);
  expect(r.status, r.text).toBe(200);
  return r.body;
};
const names = (body: any) => body.rows.map((r: any) => Object.keys(ids).find((k) => ids[k] === r.id) ?? r.id);

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  tagId = (await x.a.admin.post('/api/v1/tags', { name: unique('gate') })).body.id;
  const cam = world.camera;
  cam1 = await cam(x.a.admin, [tagId]);
  cam2 = await cam(x.a.admin);
  camB = await cam(x.b.admin);
  expect(
    (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status,
  ).toBe(200);
  const tok = (admin: Client) => world.moduleToken(admin);
  const modA = await tok(x.a.admin),
    modB = await tok(x.b.admin);
  const items = A_EVENTS.map(([, e], i) => ({
    detector: e.detector,
    occurred_at: at(i),
    severity: e.severity,
    interval: e.interval,
    camera_id: e.camera === 1 ? cam1 : e.camera === 2 ? cam2 : undefined,
    ended_at: e.ended ? at(i + 1) : undefined,
  }));
  (await send(modA, items)).forEach((id: string, i: number) => {
    ids[A_EVENTS[i]![0]] = id;
  });
  ids.b0 = (await send(modB, [{ detector: 'lpr.plate', occurred_at: at(3), camera_id: camB, severity: 'info' }]))[0];
});
afterAll(async () => {
  await t?.close();
});

describe('GET /api/v1/events', () => {
  it('newest first with every field; debug hidden by default; a stream cursor taken before the query', async () => {
    const body = await feed(x.a.admin);
    expect(names(body)).toEqual(['e7', 'e5', 'e4', 'e3', 'e2', 'e0']);
    expect(body.next_ts).toBeNull();
    expect(body.next_id).toBeNull();
    const maxSeq = await sql<{ m: number }>`select max(seq) as m from events`.execute(t.db.database.db);
    expect(body.stream_cursor).toBe(`g:${maxSeq.rows[0]!.m}`);
    const cam = (await x.a.admin.get(`/api/v1/cameras/${cam2}`)).body;
    expect(body.rows[0]).toEqual({
      id: ids.e7,
      occurred_at: at(7),
      ended_at: null,
      org_id: x.a.orgId,
      camera_id: cam2,
      camera_name: cam.name,
      node_id: cam.node_id,
      node_name: expect.any(String),
      detector: 'lpr.plate',
      detector_title: null,
      category: 'camera',
      severity: 'critical',
      confidence: null,
      interval: false,
      template_id: null,
      subject_type: null,
      subject_ref: null,
      list_values: [],
      payload: {},
      attachments: [],
      starred: false,
      ext_id: null,
    });
    expect(body.rows.find((r: any) => r.id === ids.e5)).toMatchObject({
      camera_id: null,
      interval: true,
      ended_at: at(6),
      severity: 'error',
    });
  });

  it('camera rights: an operator sees only granted cameras; other organisations are absent; org narrowing', async () => {
    expect(names(await feed(x.a.operator))).toEqual(['e4', 'e3', 'e0']);
    expect(names(await feed(x.b.admin))).toEqual(['b0']);
    expect(names(await feed(x.b.operator))).toEqual([]);
    expect(names(await feed(x.root, `?org=${x.b.orgId}`))).toEqual(['b0']);
    expect(names(await feed(x.root))).toEqual(expect.arrayContaining(['e7', 'b0']));
    const foreign = await x.a.operator.get(`/api/v1/events?org=${x.b.orgId}`);
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'cross_org' }]);
    expect(names(await feed(x.a.operator, `?camera=${cam2}`))).toEqual([]);
    expect((await x.anon.get('/api/v1/events')).status).toBe(401);
  });

  it('keyset pages with after_ts/after_id; limit default 100 and clamped to 1..500', async () => {
    const p1 = await feed(x.a.admin, '?limit=2');
    expect(names(p1)).toEqual(['e7', 'e5']);
    expect([p1.next_ts, p1.next_id]).toEqual([at(5), ids.e5]);
    const p2 = await feed(x.a.admin, `?limit=2&after_ts=${encodeURIComponent(p1.next_ts)}&after_id=${p1.next_id}`);
    expect(names(p2)).toEqual(['e4', 'e3']);
    const p3 = await feed(x.a.admin, `?limit=2&after_ts=${encodeURIComponent(p2.next_ts)}&after_id=${p2.next_id}`);
    expect(names(p3)).toEqual(['e2', 'e0']);
    expect(p3.next_ts).toBeNull();
    expect(names(await feed(x.a.admin, '?limit=0'))).toEqual(['e7']);
    expect(names(await feed(x.a.admin, '?limit=100000'))).toHaveLength(6);
  });

  it('filters: camera, tag, detector exact and prefix, category, open, starred, from/to', async () => {
    expect(names(await feed(x.a.admin, `?camera=${cam2}`))).toEqual(['e7', 'e2']);
    expect(names(await feed(x.a.admin, '?camera=not-a-uuid'))).toEqual([]);
    expect(names(await feed(x.a.admin, `?tag=${tagId}`))).toEqual(['e4', 'e3', 'e0']);
    expect(names(await feed(x.a.admin, '?detector=lpr.plate'))).toEqual(['e7', 'e0']);
    // the prefix is literal: `_` and `.` are not wildcards
    expect(names(await feed(x.a.admin, '?detector=lpr.*&severity=0'))).toEqual(['e7', 'e6', 'e1', 'e0']);
    expect(names(await feed(x.a.admin, '?detector=lpr.plate_*&severity=debug'))).toEqual(['e1']);
    expect(names(await feed(x.a.admin, '?category=camera'))).toHaveLength(6);
    expect(names(await feed(x.a.admin, '?category=system'))).toEqual([]);
    expect(names(await feed(x.a.admin, '?open=true'))).toEqual(['e4']);
    expect(names(await feed(x.a.admin, '?starred=true'))).toEqual([]);
    await sql`update events set starred = true where id = ${ids.e2}`.execute(t.db.database.db);
    expect(names(await feed(x.a.admin, '?starred=true'))).toEqual(['e2']);
    expect(names(await feed(x.a.admin, `?from=${encodeURIComponent(at(2))}&to=${encodeURIComponent(at(5))}`))).toEqual([
      'e4',
      'e3',
      'e2',
    ]);
  });

  it('severity: not below; upper bound; debug only when a bound reaches zero; none', async () => {
    expect(names(await feed(x.a.admin, '?severity=warning'))).toEqual(['e7', 'e5', 'e4', 'e2']);
    expect(names(await feed(x.a.admin, '?severity=2'))).toEqual(['e7', 'e5', 'e4', 'e2']);
    expect(names(await feed(x.a.admin, '?severity=debug'))).toEqual(['e7', 'e6', 'e5', 'e4', 'e2', 'e1', 'e0']);
    expect(names(await feed(x.a.admin, '?severity=debug&severity_max=0'))).toEqual(['e6', 'e1']);
    expect(names(await feed(x.a.admin, '?severity_max=0'))).toEqual(['e6', 'e1']);
    expect(names(await feed(x.a.admin, '?severity_max=info'))).toEqual(['e0']);
    expect(names(await feed(x.a.admin, '?severity=INFO&severity_max=warning'))).toEqual(['e2', 'e0']);
    expect(names(await feed(x.a.admin, '?severity=none'))).toEqual(['e3']);
  });

  it('errors of the feed table', async () => {
    const cases: Array<[string, string]> = [
      [`?after_ts=${encodeURIComponent(at(1))}`, 'bad_event_cursor'],
      [`?after_id=${ids.e1}`, 'bad_event_cursor'],
      ['?after_ts=yesterday&after_id=x', 'bad_event_cursor'],
      [`?from=${encodeURIComponent(at(3))}&to=${encodeURIComponent(at(3))}`, 'bad_event_range'],
      [`?from=${encodeURIComponent(at(4))}&to=${encodeURIComponent(at(3))}`, 'bad_event_range'],
      ['?from=monday', 'bad_event_range'],
      ['?severity=fatal', 'bad_severity'],
      ['?severity_max=7', 'bad_severity'],
      ['?severity=none&severity_max=info', 'bad_severity_range'],
      ['?severity=error&severity_max=info', 'bad_severity_range'],
      ['?category=module', 'bad_category'],
      ['?colour=red', 'unknown_field'],
    ];
    for (const [q, code] of cases) {
      const r = await x.a.admin.get(`/api/v1/events${q}`);
      expect([r.status, r.body], q).toEqual([400, { error: code }]);
    }
  });
});

describe('the token query parameter (browser event sources)', () => {
  it('a session token as ?token= reads the feed; the header wins; a bad one is 401; the token never reaches the log', async () => {
    // the request line (a debug line) is what could carry the token
    t.plane.services.logs.setCaptureLevel('debug');
    const tok = x.a.operator.token!;
    const r = await x.anon.get(`/api/v1/events?token=${encodeURIComponent(tok)}&limit=2`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.rows.map((row: any) => row.id)).toEqual(
      (await feed(x.a.operator, '?limit=2')).rows.map((row: any) => row.id),
    );
    // the header wins over the parameter
    expect(names(await feed(x.b.admin, `?token=${encodeURIComponent(tok)}`))).toEqual(['b0']);
    for (const bad of ['', 'nope', `${tok}x`]) {
      const u = await x.anon.get(`/api/v1/events?token=${encodeURIComponent(bad)}`);
      expect([u.status, u.body], bad).toEqual([401, { error: 'unauthorized' }]);
    }
    expect(t.logs.text).toContain('/api/v1/events?token=[redacted]');
    expect(t.logs.text).not.toContain(tok);
  });

  it('only on GET /api/v1/events: elsewhere a token parameter is no credential (401)', async () => {
    const tok = encodeURIComponent(x.a.admin.token!);
    for (const [method, url] of [
      ['GET', `/api/v1/events/${ids.e0}`],
      ['GET', '/api/v1/events/stream'],
      ['GET', `/api/v1/events/adjacent?camera=${cam1}&anchor=${encodeURIComponent(at(0))}&direction=next`],
      ['GET', `/api/v1/events/navigate?anchor=${encodeURIComponent(at(0))}&anchor_id=${ids.e0}&direction=next`],
      ['POST', `/api/v1/events/${ids.e0}/star`],
      ['GET', '/api/v1/attachments/00000000-0000-7000-8000-000000000000'],
      ['GET', '/api/v1/cameras'],
      ['GET', '/api/v1/templates'],
    ] as const) {
      const r = await x.anon.req(method, `${url}${url.includes('?') ? '&' : '?'}token=${tok}`);
      expect([r.status, r.body], `${method} ${url}`).toEqual([401, { error: 'unauthorized' }]);
    }
    // a module token is never taken from the query either
    const mod = (await x.a.admin.post('/api/v1/module-tokens', { name: unique('q') })).body.secret;
    expect((await x.anon.get(`/api/v1/events?token=${encodeURIComponent(mod)}`)).status).toBe(401);
    expect(t.logs.text).not.toContain(mod);
  });
});

describe('GET /api/v1/events/{id}', () => {
  it('the card: event, template, rendered; Cache-Control private, no-store', async () => {
    const r = await x.a.operator.get(`/api/v1/events/${ids.e0}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers['cache-control']).toBe('private, no-store');
    expect(r.body.event).toMatchObject({ id: ids.e0, detector: 'lpr.plate', severity: 'info', camera_id: cam1 });
    expect(r.body.template).toBeNull();
    expect(r.body.rendered).toEqual({ title: 'lpr.plate', details: [] });
    expect((await x.a.admin.get(`/api/v1/events/${ids.e0.toUpperCase()}`)).body.event.id).toBe(ids.e0);
  });

  it('429 event_response_busy with retry_after 1 while the 4 response slots (shared with attachments) are held; a slot frees after each card', async () => {
    const evidence = t.plane.services.evidence;
    // Sequential cards each give their slot back: more than 4 in a row all answer.
    for (let i = 0; i < 6; i++) expect((await x.a.admin.get(`/api/v1/events/${ids.e0}`)).status).toBe(200);
    const held = [evidence.takeSlot(), evidence.takeSlot(), evidence.takeSlot(), evidence.takeSlot()];
    try {
      const r = await x.a.admin.get(`/api/v1/events/${ids.e0}`);
      expect([r.status, r.body, r.headers['retry-after']]).toEqual([
        429,
        { error: 'event_response_busy', retry_after: 1 },
        '1',
      ]);
      held.pop()!();
      expect((await x.a.admin.get(`/api/v1/events/${ids.e0}`)).status).toBe(200);
      // a refused card (404) gives its slot back too
      expect((await x.a.admin.get(`/api/v1/events/${eventId(BASE)}`)).status).toBe(404);
      expect((await x.a.admin.get(`/api/v1/events/${ids.e0}`)).status).toBe(200);
    } finally {
      for (const release of held) release();
    }
  });

  it('500 response_encode_failed when the card cannot be encoded; its response slot is given back', async () => {
    const svc = t.plane.services.events.events;
    const card = svc.card;
    // a card the reply cannot encode (an event without its fields, a value JSON has no form for)
    for (const broken of [
      { event: {}, template: null, rendered: { title: 'x', details: [] } },
      {
        event: (await x.a.admin.get(`/api/v1/events/${ids.e0}`)).body.event,
        template: { big: 1n },
        rendered: { title: 'x', details: [] },
      },
    ]) {
      svc.card = async () => broken as any;
      try {
        const r = await x.a.admin.get(`/api/v1/events/${ids.e0}`);
        expect([r.status, r.body]).toEqual([500, { error: 'response_encode_failed' }]);
      } finally {
        svc.card = card;
      }
    }
    for (let i = 0; i < 5; i++) expect((await x.a.admin.get(`/api/v1/events/${ids.e0}`)).status).toBe(200);
  });

  it('404 not_found alike for unknown, malformed, foreign and ungranted events', async () => {
    const unknown = eventId(BASE);
    for (const [c, id] of [
      [x.a.admin, unknown],
      [x.a.admin, 'nope'],
      [x.a.admin, '00000000-0000-4000-8000-000000000000'],
      [x.a.admin, ids.b0],
      [x.b.admin, ids.e0],
      [x.a.operator, ids.e2],
      [x.a.operator, ids.e5],
      [x.b.operator, ids.b0],
    ] as Array<[Client, string]>) {
      const r = await c.get(`/api/v1/events/${id}`);
      expect([r.status, r.text], id).toEqual([404, NOT_FOUND]);
    }
    expect((await x.root.get(`/api/v1/events/${ids.b0}`)).status).toBe(200);
    expect((await x.anon.get(`/api/v1/events/${ids.e0}`)).status).toBe(401);
  });
});

describe('POST and DELETE /api/v1/events/{id}/star', () => {
  it('stars and unstars a visible event; the same state again changes nothing', async () => {
    const s = await x.a.operator.post(`/api/v1/events/${ids.e0}/star`);
    expect([s.status, s.body]).toEqual([200, { id: ids.e0, starred: true }]);
    expect(names(await feed(x.a.operator, '?starred=true'))).toEqual(['e0']);
    expect((await x.a.admin.get(`/api/v1/events/${ids.e0}`)).body.event.starred).toBe(true);
    const seq1 = (await sql<{ seq: number }>`select seq from events where id = ${ids.e0}`.execute(t.db.database.db))
      .rows[0]!.seq;
    expect((await x.a.admin.post(`/api/v1/events/${ids.e0}/star`)).body).toEqual({ id: ids.e0, starred: true });
    const seq2 = (await sql<{ seq: number }>`select seq from events where id = ${ids.e0}`.execute(t.db.database.db))
      .rows[0]!.seq;
    expect(seq2).toBe(seq1);
    const u = await x.a.operator.del(`/api/v1/events/${ids.e0}/star`);
    expect([u.status, u.body]).toEqual([200, { id: ids.e0, starred: false }]);
    expect((await x.a.admin.get(`/api/v1/events/${ids.e0}`)).body.event.starred).toBe(false);
  });

  it('a change is an updated frame with a new stream position', async () => {
    const got: string[] = [];
    const stop = await t.db.database.listen('argus_events', (p) => got.push(p));
    try {
      const before = Number(
        (await sql<{ seq: number }>`select seq from events where id = ${ids.e3}`.execute(t.db.database.db)).rows[0]!
          .seq,
      );
      await x.a.admin.post(`/api/v1/events/${ids.e3}/star`);
      // other tests' notices may still arrive: find ours
      const find = () =>
        got
          .flatMap((p) => JSON.parse(p) as any[])
          .find((n) => n.frames?.some((fr: any) => fr.id === ids.e3 && fr.starred));
      for (let i = 0; i < 250 && !find(); i++) await new Promise((r) => setTimeout(r, 20));
      const notice = find();
      expect(notice.frames).toHaveLength(1);
      const f = notice.frames[0];
      expect(f).toMatchObject({ id: ids.e3, starred: true, updated: true, camera_id: cam1, org_id: x.a.orgId });
      expect(f).not.toHaveProperty('interval');
      expect(f.seq).toBeGreaterThan(before);
      expect([notice.from, notice.to]).toEqual([f.seq, f.seq]);
      await x.a.admin.del(`/api/v1/events/${ids.e3}/star`);
    } finally {
      await stop();
    }
  });

  it('404 alike for unknown, malformed, foreign and ungranted events; 401 without a session', async () => {
    for (const [c, id] of [
      [x.a.operator, ids.e2],
      [x.a.operator, ids.e5],
      [x.b.admin, ids.e0],
      [x.a.admin, 'nope'],
      [x.a.admin, eventId(BASE)],
    ] as Array<[Client, string]>) {
      for (const r of [await c.post(`/api/v1/events/${id}/star`), await c.del(`/api/v1/events/${id}/star`)])
        expect([r.status, r.text], id).toEqual([404, NOT_FOUND]);
    }
    expect(
      (await t.db.database.db.selectFrom('events').select('starred').where('id', '=', ids.e5).executeTakeFirstOrThrow())
        .starred,
    ).toBe(false);
    expect((await x.anon.post(`/api/v1/events/${ids.e0}/star`)).status).toBe(401);
  });
});
