import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';
import type { Principal } from '../../../src/plane/http/principal.js';

/**
 * The feed page written as text (feedJson: times and JSON documents come as text from the
 * database and are spliced in) against the page built from objects (feed, eventJson): the same
 * fields, order, values and cursors for every kind of value.
 */
let t: TestPlane;
let x: Tenants;
let cam: string;
const BASE = Date.now() - 3 * 86_400_000;

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const node = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id;
  cam = (
    await x.a.admin.post('/api/v1/cameras', {
      name: unique('cam "quoted" é'),
      node_id: node,
      main_source: 'rtsp://10.0.0.1/a',
    })
  ).body.id;
  expect(
    (
      await x.a.admin.post('/api/v1/templates', {
        name: unique('t'),
        doc: {
          detector_match: 'lpr.*',
          title: { en: 'Plate', de: 'Kennzeichen' },
          list_fields: [{ key: 'plate', label: 'Plate', source: '/plate' }],
          fields: [{ key: 'plate', label: 'Plate', source: '/plate', type: 'string' }],
        },
      })
    ).status,
  ).toBe(201);
  const mod = new Client(
    t.plane.app,
    (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m'), rate_limit: 100000 })).body.secret,
  );
  const kinds = [
    {
      detector: 'lpr.gate',
      camera_id: cam,
      payload: {
        plate: 'AB 123',
        n: [1, 2.5, -0.125, 1e21, 1e-7],
        s: 'ü "q" \\ \n</script>',
        deep: { a: null, b: true },
      },
    },
    {
      detector: 'motion.zone',
      camera_id: cam,
      severity: 'critical',
      confidence: 0.1,
      subject_type: 'person',
      subject_ref: 'r',
      ext_id: 'x-1',
    },
    { detector: 'door.open', severity: 'debug', detector_title: 'Door', interval: true },
    {
      detector: 'door.closed',
      severity: 'warning',
      detector_title: { en: 'Closed', fr: 'Fermée' },
      interval: true,
      ended_at: null,
      confidence: 99.75,
    },
    { detector: 'presence', camera_id: cam, severity: 'error', interval: true },
  ];
  // Over three days (the feed's probe window is one), some in the same millisecond (the id orders them).
  const events = Array.from({ length: 60 }, (_, i) => ({
    ...kinds[i % kinds.length],
    occurred_at: new Date(BASE + Math.floor(i / 2) * 3_600_000 + 1).toISOString(),
  }));
  const r = await mod.post('/api/v1/events', { events });
  expect(r.status, r.text).toBe(200);
  expect(r.body.results.every((x: { id?: string }) => x.id)).toBe(true);
  // one closed interval
  const closed = r.body.results[4].id;
  expect(
    (await x.a.admin.patch(`/api/v1/events/${closed}`, { ended_at: new Date(BASE + 7_200_000 + 500).toISOString() }))
      .status,
  ).toBe(200);
  expect((await x.a.admin.post(`/api/v1/events/${r.body.results[1].id}/star`)).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

const principal = (): Principal =>
  ({
    userId: x.a.adminId,
    orgId: x.a.orgId,
    role: 'admin',
    login: 'a',
    name: 'a',
    sessionId: 's',
    expiresAt: Date.now() + 60_000,
    ip: '',
    userAgent: '',
  }) as Principal;

describe('feed written as text', () => {
  it('equals the page built from objects, page by page, with every filter kind', async () => {
    const svc = t.plane.services.events.events;
    for (const base of [
      {},
      { severity: 'debug' },
      { severity: 'none' },
      { camera: cam },
      { detector: 'door.*' },
      { starred: true },
      { open: true },
      { limit: 1 },
      { limit: 7 },
    ]) {
      let q: Record<string, unknown> = { limit: 5, ...base };
      let pages = 0;
      for (;;) {
        const json = JSON.parse(await svc.feedJson(principal(), q as any));
        const objects = JSON.parse(JSON.stringify(await svc.feed(principal(), q as any)));
        expect(json, JSON.stringify(q)).toEqual(objects);
        pages++;
        if (!json.next_ts) break;
        q = { ...q, after_ts: json.next_ts, after_id: json.next_id };
      }
      expect(pages).toBeGreaterThan(0);
    }
  });

  it('through HTTP: the same body, JSON content type', async () => {
    const r = await x.a.admin.get('/api/v1/events?limit=20');
    expect(r.status, r.text).toBe(200);
    expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(r.body.rows).toHaveLength(20);
    expect(r.body).toEqual(
      JSON.parse(JSON.stringify(await t.plane.services.events.events.feed(principal(), { limit: 20 }))),
    );
    expect(r.body.rows[0]).toMatchObject({
      org_id: x.a.orgId,
      occurred_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });
});
