import { describe, expect, it } from 'vitest';
import type { Client } from '../client.js';
import { A, at, BASE, cam1, cam2, camB, enc, hi, ids, lo, name, navigationWorld, x } from './navigation.helpers.js';

// GET /api/v1/events/adjacent and GET /api/v1/events/navigate; POST /api/v1/events/reconcile and
// the feed search (q) in both: navigation.reconcile.test.ts.
navigationWorld();

describe('GET /api/v1/events/adjacent', () => {
  const adj = async (c: Client, q: string) => {
    const r = await c.get(`/api/v1/events/adjacent?${q}`);
    expect(r.status, r.text).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    return r.body.event;
  };

  it('previous and next of one camera: inclusive at the anchor time without anchor_id, strict with it; full rows; debug included', async () => {
    const e = await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(4))}&direction=previous`);
    expect(e).toMatchObject({
      id: ids.a5,
      camera_id: cam1,
      detector: 'face',
      severity: 'error',
      payload: {},
      starred: false,
    });
    expect(Object.keys(e).sort()).toEqual([
      'attachments',
      'camera_id',
      'camera_name',
      'category',
      'confidence',
      'detector',
      'detector_title',
      'ended_at',
      'ext_id',
      'id',
      'interval',
      'list_values',
      'node_id',
      'node_name',
      'occurred_at',
      'org_id',
      'payload',
      'severity',
      'starred',
      'subject_ref',
      'subject_type',
      'template_id',
    ]);
    expect(
      name((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(4))}&anchor_id=${ids.a5}&direction=previous`)).id),
    ).toBe(name(hi));
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(2))}&anchor_id=${hi}&direction=previous`)).id).toBe(
      lo,
    );
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(2))}&anchor_id=${lo}&direction=next`)).id).toBe(hi);
    // debug events are not hidden here: no feed filters
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(0))}&anchor_id=${ids.a0}&direction=next`)).id).toBe(
      ids.a1,
    );
    expect((await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(0))}&direction=next`)).id).toBe(ids.a0);
    expect(
      (await adj(x.a.operator, `camera=${cam1}&anchor=${enc(new Date(BASE + 500).toISOString())}&direction=next`)).id,
    ).toBe(ids.a1);
    // no more events of the camera (a6 has none)
    expect(
      await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(4))}&anchor_id=${ids.a5}&direction=next`),
    ).toBeNull();
    expect(
      await adj(x.a.operator, `camera=${cam1}&anchor=${enc(at(0))}&anchor_id=${ids.a0}&direction=previous`),
    ).toBeNull();
    expect(
      (await adj(x.a.admin, `camera=${cam1}&anchor=${enc(at(0))}&anchor_id=${ids.a0.toUpperCase()}&direction=next`)).id,
    ).toBe(ids.a1);
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
    for (const [c, camera] of [
      [x.a.operator, cam2],
      [x.b.admin, cam1],
      [x.a.admin, camB],
      [x.b.operator, camB],
      [x.a.admin, '00000000-0000-4000-8000-000000000000'],
      [x.a.admin, 'nope'],
    ] as Array<[Client, string]>) {
      expect(await adj(c, `camera=${camera}&anchor=${enc(at(9))}&direction=previous`), camera).toBeNull();
    }
    expect((await adj(x.root, `camera=${camB}&anchor=${enc(at(9))}&direction=previous`)).id).toBe(ids.b0);
    expect(
      (await x.anon.get(`/api/v1/events/adjacent?camera=${cam1}&anchor=${enc(at(9))}&direction=previous`)).status,
    ).toBe(401);
  });

  it('errors: bad_direction, bad_excluded_detectors, bad_anchor, bad_camera, unknown_field', async () => {
    const q = `camera=${cam1}&anchor=${enc(at(0))}`;
    const long = JSON.stringify(['é'.repeat(129)]); // 129 characters, 258 bytes
    const cases: Array<[string, string]> = [
      [`${q}&direction=up`, 'bad_direction'],
      [q, 'bad_direction'],
      [`${q}&direction=`, 'bad_direction'],
      [`${q}&direction=next&excluded_detectors=lpr.plate`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('{"a":1}')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('"motion"')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('[""]')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc('[1]')}`, 'bad_excluded_detectors'],
      [`${q}&direction=next&excluded_detectors=${enc(long)}`, 'bad_excluded_detectors'],
      [
        `${q}&direction=next&excluded_detectors=${enc(JSON.stringify(Array.from({ length: 65 }, (_, i) => `d${i}`)))}`,
        'bad_excluded_detectors',
      ],
      [
        `${q}&direction=next&excluded_detectors=${enc('["a"]')}&excluded_detectors=${enc('["b"]')}`,
        'bad_excluded_detectors',
      ],
      [`camera=${cam1}&direction=next`, 'bad_anchor'],
      [`camera=${cam1}&anchor=yesterday&direction=next`, 'bad_anchor'],
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
    const r = await c.get(
      `/api/v1/events/navigate?anchor=${enc(at(occurred as number))}&anchor_id=${e}&direction=${direction}${q}`,
    );
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
    const foreign = await x.a.operator.get(
      `/api/v1/events/navigate?anchor=${enc(at(4))}&anchor_id=${ids.a5}&direction=next&org=${x.b.orgId}`,
    );
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'cross_org' }]);
  });

  it('errors: bad_direction, bad_anchor, the feed filter errors', async () => {
    const q = `anchor=${enc(at(4))}&anchor_id=${ids.a5}`;
    const cases: Array<[string, string]> = [
      [`${q}&direction=down`, 'bad_direction'],
      [q, 'bad_direction'],
      [`anchor_id=${ids.a5}&direction=next`, 'bad_anchor'],
      [`anchor=${enc(at(4))}&direction=next`, 'bad_anchor'],
      [`anchor=x&anchor_id=${ids.a5}&direction=next`, 'bad_anchor'],
      [`${q.split('&')[0]}&anchor_id=x&direction=next`, 'bad_anchor'],
      [`${q}&direction=next&after_ts=${enc(at(1))}`, 'bad_event_cursor'],
      [`${q}&direction=next&from=${enc(at(3))}&to=${enc(at(3))}`, 'bad_event_range'],
      [`${q}&direction=next&severity=fatal`, 'bad_severity'],
      [`${q}&direction=next&severity=none&severity_max=1`, 'bad_severity_range'],
      [`${q}&direction=next&category=module`, 'bad_category'],
      [`${q}&direction=next&colour=red`, 'unknown_field'],
    ];
    for (const [query, code] of cases) {
      const r = await x.a.admin.get(`/api/v1/events/navigate?${query}`);
      expect([r.status, r.body], query).toEqual([400, { error: code }]);
    }
  });
});
