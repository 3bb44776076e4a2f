import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { eventId } from '../../../src/plane/events/log/events.ids.js';
import { sendEvents } from '../fixtures.js';

let t: TestPlane;
let x: Tenants;
let cam1: string, cam2: string, camB: string;
const ids: Record<string, string> = {};
const BASE = Date.now() - 3600_000;
const at = (i: number) => new Date(BASE + i * 1000).toISOString();
const enc = encodeURIComponent;

// Org A: a0..a6 on cam1 (granted to the operator) / cam2 / no camera; a2 and a3 share a millisecond. Org B: b0.
const A: Array<[string, Record<string, unknown>]> = [
  ['a0', { detector: 'motion', camera: 1, severity: 'info', t: 0 }],
  ['a1', { detector: 'lpr.plate', camera: 1, severity: 'debug', t: 1 }],
  ['a2', { detector: 'lpr.plate', camera: 1, severity: 'info', t: 2 }],
  ['a3', { detector: 'motion', camera: 1, severity: 'info', t: 2 }],
  ['a4', { detector: 'motion', camera: 2, severity: 'warning', t: 3 }],
  ['a5', { detector: 'face', camera: 1, severity: 'error', t: 4 }],
  ['a6', { detector: 'sys', severity: 'info', t: 5 }],
];
// Of the two events at one millisecond, the key order (time, id) decides.
let lo: string, hi: string;

const send = sendEvents;
const name = (id: string | undefined) => Object.keys(ids).find((k) => ids[k] === id) ?? id;

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  const cam = (admin: Client) => world.camera(admin);
  cam1 = await cam(x.a.admin); cam2 = await cam(x.a.admin); camB = await cam(x.b.admin);
  expect((await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status).toBe(200);
  const tok = (admin: Client) => world.moduleToken(admin);
  const modA = await tok(x.a.admin), modB = await tok(x.b.admin);
  const items = A.map(([, e]) => ({
    detector: e.detector, occurred_at: at(e.t as number), severity: e.severity,
    camera_id: e.camera === 1 ? cam1 : e.camera === 2 ? cam2 : undefined,
  }));
  (await send(modA, items)).forEach((id: string, i: number) => { ids[A[i]![0]] = id; });
  ids.b0 = (await send(modB, [{ detector: 'motion', occurred_at: at(2), camera_id: camB, severity: 'info' }]))[0];
  [lo, hi] = [ids.a2!, ids.a3!].sort();
});
afterAll(async () => { await t?.close(); });

describe('GET /api/v1/events/adjacent', () => {
  const adj = async (c: Client, q: string) => {
    const r = await c.get(`/api/v1/events/adjacent?${q}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    return r.body.event;
  };

  it('previous and next of one camera: inclusive at the anchor time without anchor_id, strict with it; full rows; debug included', async () => {
    const e = await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(4))}&direction=previous`);
    expect(e).toMatchObject({ id: ids.a5, camera_id: cam1, detector: 'face', severity: 'error', payload: {}, starred: false });
    expect(Object.keys(e).sort()).toEqual(['attachments', 'camera_id', 'camera_name', 'category', 'confidence', 'detector', 'detector_title',
      'ended_at', 'ext_id', 'id', 'interval', 'list_values', 'node_id', 'node_name', 'occurred_at', 'org_id', 'payload', 'severity',
      'starred', 'subject_ref', 'subject_type', 'template_id']);
    expect(name((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(4))}&anchor_id=${ids.a5}&direction=previous`)).id)).toBe(name(hi));
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(2))}&anchor_id=${hi}&direction=previous`)).id).toBe(lo);
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(2))}&anchor_id=${lo}&direction=next`)).id).toBe(hi);
    // debug events are not hidden here: no feed filters
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(0))}&anchor_id=${ids.a0}&direction=next`)).id).toBe(ids.a1);
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(0))}&direction=next`)).id).toBe(ids.a0);
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(new Date(BASE + 500).toISOString())}&direction=next`)).id).toBe(ids.a1);
    // no more events of the camera (a6 has none)
    expect(await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(4))}&anchor_id=${ids.a5}&direction=next`)).toBeNull();
    expect(await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(0))}&anchor_id=${ids.a0}&direction=previous`)).toBeNull();
    expect((await adj(x.a.admin, `camera=${cam1}&anchor=${enc(at(0))}&anchor_id=${ids.a0.toUpperCase()}&direction=next`)).id).toBe(ids.a1);
  });

  it('excluded_detectors: a JSON array of exact ids', async () => {
    const q = `camera=${cam1}&anchor=${enc(at(0))}&anchor_id=${ids.a0}&direction=next`;
    expect((await adj(x.a.admin, `${q}&excluded_detectors=${enc('["lpr.plate"]')}`)).id).toBe(ids.a3);
    expect((await adj(x.a.admin, `${q}&excluded_detectors=${enc('["lpr.plate","motion"]')}`)).id).toBe(ids.a5);
    // exact ids, not masks
    expect((await adj(x.a.admin, `${q}&excluded_detectors=${enc('["lpr.*"]')}`)).id).toBe(ids.a1);
    expect((await adj(x.a.admin, `${q}&excluded_detectors=${enc('[]')}`)).id).toBe(ids.a1);
    const max = JSON.stringify(Array.from({ length: 64 }, (_, i) => String(i).padEnd(256, 'x')));
    expect((await adj(x.a.admin, `${q}&excluded_detectors=${enc(max)}`)).id).toBe(ids.a1);
  });

  it('a camera outside the rights, of another organisation, unknown or of another shape looks like no more events', async () => {
    expect((await adj(x.a.admin, `camera=${cam2}&anchor=${enc(at(9))}&direction=previous`)).id).toBe(ids.a4);
    for (const [c, camera] of [[x.a.operator, cam2], [x.b.admin, cam1], [x.a.admin, camB], [x.b.operator, camB],
      [x.a.admin, '00000000-0000-4000-8000-000000000000'], [x.a.admin, 'nope']] as Array<[Client, string]>) {
      expect(await adj(c, `camera=${camera}&anchor=${enc(at(9))}&direction=previous`), camera).toBeNull();
    }
    expect((await adj(x.root, `camera=${camB}&anchor=${enc(at(9))}&direction=previous`)).id).toBe(ids.b0);
    expect((await x.anon.get(`/api/v1/events/adjacent?camera=${cam1}&anchor=${enc(at(9))}&direction=previous`)).status).toBe(401);
  });

  it('errors: bad_direction, bad_excluded_detectors, bad_anchor, bad_camera, unknown_field', async () => {
    const q = `camera=${cam1}&anchor=${enc(at(0))}`;
    const long = JSON.stringify(['é'.repeat(129)]); // 129 characters, 258 bytes
    const cases: Array<[string, string]> = [
      [`${q}&direction=up`, 'bad_direction'], [q, 'bad_direction'], [`${q}&direction=`, 'bad_direction'],
      [`${q}&direction=next&excluded_detectors=lpr.plate`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('{"a":1}')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('"motion"')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('[""]')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('[1]')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc(long)}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc(JSON.stringify(Array.from({ length: 65 }, (_, i) => `d${i}`)))}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('["a"]')}&excluded_detectors=${enc('["b"]')}`, 'bad_excluded_detectors'],
      [`camera=${cam1}&direction=next`, 'bad_anchor'], [`camera=${cam1}&anchor=yesterday&direction=next`, 'bad_anchor'],
      [`${q}&anchor_id=x&direction=next`, 'bad_anchor'],
      [`anchor=${enc(at(0))}&direction=next`, 'bad_camera'],
      [`${q}&direction=next&detector=motion`, 'unknown_field'],
    ];
    for (const [query, code] of cases) {
      const r = await x.a.admin.get(`/api/v1/events/adjacent?${query}`);
      expect([r.status, r.body], query).toEqual([400, { error: code }]);
    }
  });
});

describe('GET /api/v1/events/navigate', () => {
  const nav = async (c: Client, anchor: string, direction: string, q = '') => {
    const e = ids[anchor] ?? anchor;
    const occurred = Object.entries(ids).find(([, v]) => v === e) ? A.find(([k]) => ids[k] === e)?.[1].t : undefined;
    const r = await c.get(`/api/v1/events/navigate?anchor=${enc(at(occurred as number))}&anchor_id=${e}&direction=${direction}${q}`);
    expect(r.status, r.text).toBe(200);
    if (r.body.event) expect(r.body.event).toEqual({ id: r.body.event.id, occurred_at: expect.any(String) });
    return r.body.event ? name(r.body.event.id) : null;
  };

  it('one row down (next, older) or up (previous, newer) of the newest-first feed, across pages', async () => {
    // the admin's feed: a6 a5 a4 hi lo a0 (a1 is debug)
    expect(await nav(x.a.admin, 'a5', 'next')).toBe('a4');
    expect(await nav(x.a.admin, 'a4', 'next')).toBe(name(hi));
    expect(await nav(x.a.admin, hi, 'next')).toBe(name(lo));
    expect(await nav(x.a.admin, lo, 'next')).toBe('a0');
    expect(await nav(x.a.admin, 'a0', 'next')).toBeNull();
    expect(await nav(x.a.admin, 'a5', 'previous')).toBe('a6');
    expect(await nav(x.a.admin, lo, 'previous')).toBe(name(hi));
    expect(await nav(x.a.admin, 'a6', 'previous')).toBeNull();
    const r = await x.a.admin.get(`/api/v1/events/navigate?anchor=${enc(at(4))}&anchor_id=${ids.a5}&direction=next`);
    expect(r.body).toEqual({ event: { id: ids.a4, occurred_at: at(3) } });
    // limit and a cursor do not bound the move
    expect(await nav(x.a.admin, 'a5', 'previous', `&limit=1&after_ts=${enc(at(4))}&after_id=${ids.a5}`)).toBe('a6');
  });

  it('within the feed filters: camera, severity (debug only when a bound reaches zero), detector, from/to, org', async () => {
    expect(await nav(x.a.admin, 'a5', 'next', `&camera=${cam1}`)).toBe(name(hi));
    expect(await nav(x.a.admin, lo, 'next', '&severity=debug')).toBe('a1');
    expect(await nav(x.a.admin, 'a5', 'next', '&severity=warning')).toBe('a4');
    expect(await nav(x.a.admin, 'a4', 'next', '&severity=warning')).toBeNull();
    expect(await nav(x.a.admin, 'a5', 'next', '&detector=mot*')).toBe('a4');
    expect(await nav(x.a.admin, 'a5', 'next', `&from=${enc(at(3))}`)).toBe('a4');
    expect(await nav(x.a.admin, 'a4', 'next', `&from=${enc(at(3))}`)).toBeNull();
    expect(await nav(x.root, 'a5', 'next', `&org=${x.a.orgId}`)).toBe('a4');
    expect(await nav(x.root, 'a5', 'next', `&org=${x.b.orgId}`)).toBe('b0');
  });

  it('camera rights: ungranted and camera-less events are skipped; another organisation is absent', async () => {
    expect(await nav(x.a.operator, 'a5', 'next')).toBe(name(hi));
    expect(await nav(x.a.operator, 'a5', 'previous')).toBeNull();
    expect(await nav(x.b.admin, 'a0', 'next')).toBeNull();
    expect(await nav(x.b.admin, 'a0', 'previous')).toBe('b0');
    expect(await nav(x.b.admin, 'a4', 'next')).toBe('b0');
    const foreign = await x.a.operator.get(`/api/v1/events/navigate?anchor=${enc(at(4))}&anchor_id=${ids.a5}&direction=next&org=${x.b.orgId}`);
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'cross_org' }]);
  });

  it('errors: bad_direction, bad_anchor, the feed filter errors', async () => {
    const q = `anchor=${enc(at(4))}&anchor_id=${ids.a5}`;
    const cases: Array<[string, string]> = [
      [`${q}&direction=down`, 'bad_direction'], [q, 'bad_direction'],
      [`anchor_id=${ids.a5}&direction=next`, 'bad_anchor'], [`anchor=${enc(at(4))}&direction=next`, 'bad_anchor'],
      [`anchor=x&anchor_id=${ids.a5}&direction=next`, 'bad_anchor'], [`${q.split('&')[0]}&anchor_id=x&direction=next`, 'bad_anchor'],
      [`${q}&direction=next&after_ts=${enc(at(1))}`, 'bad_event_cursor'],
      [`${q}&direction=next&from=${enc(at(3))}&to=${enc(at(3))}`, 'bad_event_range'],
      [`${q}&direction=next&severity=fatal`, 'bad_severity'], [`${q}&direction=next&severity=none&severity_max=1`, 'bad_severity_range'],
      [`${q}&direction=next&category=module`, 'bad_category'], [`${q}&direction=next&colour=red`, 'unknown_field'],
    ];
    for (const [query, code] of cases) {
      const r = await x.a.admin.get(`/api/v1/events/navigate?${query}`);
      expect([r.status, r.body], query).toEqual([400, { error: code }]);
    }
  });
});

describe('POST /api/v1/events/reconcile', () => {
  const key = (k: string) => ({ id: ids[k]!, occurred_at: at(A.find(([n]) => n === k)?.[1].t as number ?? 2) });
  const all = () => ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b0'].map(key);
  const rec = async (c: Client, candidates: unknown[], q = '') => {
    const r = await c.post(`/api/v1/events/reconcile${q}`, { candidates });
    expect(r.status, r.text).toBe(200);
    expect(r.body.next_ts).toBeNull();
    expect(r.body.next_id).toBeNull();
    expect(Object.keys(r.body).sort()).toEqual(['next_id', 'next_ts', 'rows']);
    return r.body.rows.map((row: any) => name(row.id));
  };

  it('exactly the candidates that match the filter, as full rows, newest first; missing, foreign and ungranted alike absent', async () => {
    const unknown = { id: eventId(BASE + 2000), occurred_at: at(2) };
    // a candidate whose time is not its id's names no event
    const skewed = { id: ids.a0, occurred_at: at(1) };
    expect(await rec(x.a.admin, [...all(), unknown, skewed, key('a0'), { ...key('a5'), id: ids.a5!.toUpperCase() }]))
      .toEqual(['a6', 'a5', 'a4', name(hi), name(lo), 'a0']);
    expect(await rec(x.a.operator, all())).toEqual(['a5', name(hi), name(lo), 'a0']);
    expect(await rec(x.b.admin, all())).toEqual(['b0']);
    expect(await rec(x.b.operator, all())).toEqual([]);
    expect(await rec(x.root, all())).toEqual(['a6', 'a5', 'a4', ...[name(hi), name(lo), 'b0'].sort((p, q) => (ids[p!]! < ids[q!]! ? 1 : -1)), 'a0']);
    const r = await x.a.admin.post('/api/v1/events/reconcile', { candidates: [key('a5')] });
    expect(r.body.rows[0]).toMatchObject({ id: ids.a5, occurred_at: at(4), camera_id: cam1, severity: 'error', detector: 'face', org_id: x.a.orgId });
    expect((await x.a.admin.post('/api/v1/events/reconcile', {})).body).toEqual({ rows: [], next_ts: null, next_id: null });
    expect((await x.anon.post('/api/v1/events/reconcile', { candidates: [] })).status).toBe(401);
  });

  it('the feed filters apply; limit is ignored; org narrows for a superadmin', async () => {
    expect(await rec(x.a.admin, all(), `?camera=${cam1}`)).toEqual(['a5', name(hi), name(lo), 'a0']);
    expect(await rec(x.a.admin, all(), '?severity=debug&severity_max=0')).toEqual(['a1']);
    expect(await rec(x.a.admin, all(), '?severity=warning')).toEqual(['a5', 'a4']);
    expect(await rec(x.a.admin, all(), '?detector=lpr.*&severity=0')).toEqual(['a2', 'a1']);
    expect(await rec(x.a.admin, all(), `?from=${enc(at(2))}&to=${enc(at(4))}`)).toEqual(['a4', name(hi), name(lo)]);
    expect(await rec(x.a.admin, all(), '?limit=1')).toHaveLength(6);
    expect(await rec(x.root, all(), `?org=${x.b.orgId}`)).toEqual(['b0']);
    const foreign = await x.a.admin.post(`/api/v1/events/reconcile?org=${x.b.orgId}`, { candidates: [] });
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'cross_org' }]);
  });

  it('limits: 512 candidates, duplicates collapse, a spread of at most 31 days after dropping those outside from/to', async () => {
    const many = Array.from({ length: 512 }, (_, i) => ({ id: eventId(BASE - i * 1000), occurred_at: new Date(BASE - i * 1000).toISOString() }));
    expect(await rec(x.a.admin, [...many.slice(0, 511), key('a0')])).toEqual(['a0']);
    const dup = Array.from({ length: 512 }, () => key('a0'));
    expect(await rec(x.a.admin, dup)).toEqual(['a0']);
    const too = await x.a.admin.post('/api/v1/events/reconcile', { candidates: [...many, key('a0')] });
    expect([too.status, too.body]).toEqual([400, { error: 'event_reconcile_too_many_candidates' }]);
    const DAY = 86_400_000;
    const old = (days: number) => ({ id: eventId(BASE - days * DAY), occurred_at: new Date(BASE - days * DAY).toISOString() });
    expect(await rec(x.a.admin, [old(31), key('a0')])).toEqual(['a0']);
    const wide = await x.a.admin.post('/api/v1/events/reconcile', { candidates: [old(32), key('a0')] });
    expect([wide.status, wide.body]).toEqual([400, { error: 'event_reconcile_span_too_wide' }]);
    expect(await rec(x.a.admin, [old(40), key('a0')], `?from=${enc(new Date(BASE - DAY).toISOString())}`)).toEqual(['a0']);
    expect(await rec(x.a.admin, [old(40), old(1)], `?to=${enc(new Date(BASE - 2 * DAY).toISOString())}`)).toEqual([]);
  });

  it('errors: cursor not allowed, feed filter errors, bad candidates, 413 over 96 KiB', async () => {
    const post = (q: string, body: unknown) => x.a.admin.post(`/api/v1/events/reconcile${q}`, body);
    const cases: Array<[string, unknown, string]> = [
      [`?after_ts=${enc(at(1))}&after_id=${ids.a1}`, { candidates: [] }, 'event_reconcile_cursor_not_allowed'],
      [`?after_ts=${enc(at(1))}`, { candidates: [] }, 'event_reconcile_cursor_not_allowed'],
      [`?after_id=${ids.a1}`, { candidates: [] }, 'event_reconcile_cursor_not_allowed'],
      [`?from=${enc(at(3))}&to=${enc(at(2))}`, { candidates: [] }, 'bad_event_range'],
      ['?severity=fatal', { candidates: [] }, 'bad_severity'], ['?severity=3&severity_max=1', { candidates: [] }, 'bad_severity_range'],
      ['?category=x', { candidates: [] }, 'bad_category'], ['?colour=red', { candidates: [] }, 'unknown_field'],
      ['', { candidates: [{ id: 'x', occurred_at: at(0) }] }, 'bad_request'],
      ['', { candidates: [{ id: ids.a0, occurred_at: 'today' }] }, 'bad_request'],
      ['', { candidates: [{ id: ids.a0 }] }, 'bad_request'],
      ['', { candidates: [{ ...key('a0'), extra: 1 }] }, 'unknown_field'],
      ['', { candidates: 'a0' }, 'bad_request'],
      ['', { candidates: [], more: 1 }, 'unknown_field'],
    ];
    for (const [q, body, code] of cases) {
      const r = await post(q, body);
      expect([r.status, r.body], `${q} ${JSON.stringify(body)}`).toEqual([400, { error: code }]);
    }
    const big = JSON.stringify({ candidates: [key('a0')] }).replace('{', `{${' '.repeat(96 * 1024)}`);
    const r = await x.a.admin.req('POST', '/api/v1/events/reconcile', big, { 'content-type': 'application/json' });
    expect([r.status, r.body]).toEqual([413, { error: 'payload_too_large' }]);
    const fits = JSON.stringify({ candidates: [key('a0')] }).replace('{', `{${' '.repeat(90 * 1024)}`);
    expect((await x.a.admin.req('POST', '/api/v1/events/reconcile', fits, { 'content-type': 'application/json' })).status).toBe(200);
  });
});

describe('navigate and reconcile with q (the feed search)', () => {
  const navQ = async (c: Client, anchor: string, direction: string, q: string) => {
    const t0 = A.find(([k]) => k === anchor)![1].t as number;
    return c.get(`/api/v1/events/navigate?anchor=${enc(at(t0))}&anchor_id=${ids[anchor]}&direction=${direction}&q=${enc(q)}`);
  };
  const all = () => ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b0'].map((k) => ({ id: ids[k]!, occurred_at: at(A.find(([n]) => n === k)?.[1].t as number ?? 2) }));

  it('only rows the search finds, within rights', async () => {
    // motion: a0, a3, a4 (cam2) in org A
    expect((await navQ(x.a.admin, 'a5', 'next', 'motion')).body).toEqual({ event: { id: ids.a4, occurred_at: at(3) } });
    expect((await navQ(x.a.admin, 'a4', 'next', 'motion')).body.event.id).toBe(ids.a3);
    expect((await navQ(x.a.admin, 'a3', 'next', 'motion')).body.event.id).toBe(ids.a0);
    expect((await navQ(x.a.admin, 'a0', 'previous', 'motion')).body.event.id).toBe(ids.a3);
    expect((await navQ(x.a.operator, 'a5', 'next', 'motion')).body.event.id).toBe(ids.a3);
    expect((await navQ(x.a.admin, 'a0', 'next', 'motion')).body).toEqual({ event: null });
    const r = await x.a.admin.post(`/api/v1/events/reconcile?q=motion`, { candidates: all() });
    expect(r.status, r.text).toBe(200);
    expect(r.body.rows.map((row: any) => row.id)).toEqual([ids.a4, ids.a3, ids.a0]);
    const op = await x.a.operator.post(`/api/v1/events/reconcile?q=motion`, { candidates: all() });
    expect(op.body.rows.map((row: any) => row.id)).toEqual([ids.a3, ids.a0]);
  });

  it('event_search_too_short; 429 event_search_busy when the 4 search slots are taken', async () => {
    for (const r of [await navQ(x.a.admin, 'a5', 'next', 'x'), await x.a.admin.post(`/api/v1/events/reconcile?q=x`, { candidates: [] })]) {
      expect([r.status, r.body]).toEqual([400, { error: 'event_search_too_short' }]);
    }
    const search = t.plane.services.events.events.search;
    const held = [search.take(), search.take(), search.take(), search.take()];
    try {
      for (const r of [await navQ(x.a.admin, 'a5', 'next', 'motion'), await x.a.admin.post(`/api/v1/events/reconcile?q=motion`, { candidates: all() })]) {
        expect([r.status, r.body]).toEqual([429, { error: 'event_search_busy', retry_after: 1 }]);
        expect(r.headers['retry-after']).toBe('1');
      }
      // without q no slot is needed
      expect((await x.a.admin.post('/api/v1/events/reconcile', { candidates: all() })).status).toBe(200);
      const t0 = A.find(([k]) => k === 'a5')![1].t as number;
      const plain = await x.a.admin.get(`/api/v1/events/navigate?anchor=${enc(at(t0))}&anchor_id=${ids.a5}&direction=next`);
      expect(plain.status, plain.text).toBe(200);
    } finally { for (const release of held) release(); }
    expect((await navQ(x.a.admin, 'a5', 'next', 'motion')).status).toBe(200);
  });
});

