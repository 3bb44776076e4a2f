import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, type Tenants, cameraWorld } from '../inventory.helpers.js';

let t: TestPlane;
let x: Tenants;
let mod: Client;
let cam1: string, cam2: string;
const iso = (ms: number) => new Date(ms).toISOString();

const PLATE_DOC = {
  detector_match: 'lpr.*',
  title: { en: 'Number plate', de: 'Kennzeichen' },
  list_fields: [{ key: 'plate', label: 'Plate', source: '/plate' }],
  attachment_fields: [{ key: 'frame', label: 'Frame', source: '/frame' }],
  fields: [
    { key: 'plate', label: 'Plate', source: '/plate', type: 'string' },
    { key: 'speed', label: 'Speed', source: '/speed', type: 'number', unit: 'km/h' },
    {
      key: 'kind',
      label: 'Kind',
      source: '/vehicle/kind',
      type: 'enum',
      enum_values: ['car', { value: 'bus', label: 'Bus' }],
    },
    { key: 'wrong_way', label: 'Wrong way', source: '/wrong_way', type: 'bool' },
    { key: 'note', label: 'Note', source: '/note', type: 'string' },
  ],
  detail_layout: [
    { title: 'Vehicle', keys: ['plate', 'kind', 'speed'] },
    { title: 'More', keys: ['wrong_way', 'note', 'frame', 'nope'] },
  ],
};

async function send(items: unknown[], m = mod) {
  const r = await m.post('/api/v1/events', { events: items });
  expect(r.status, r.text).toBe(200);
  return r.body.results;
}
const card = async (c: Client, id: string) => c.get(`/api/v1/events/${id}`);

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  const cam = () => world.camera(x.a.admin);
  cam1 = await cam();
  cam2 = await cam();
  expect(
    (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status,
  ).toBe(200);
  mod = await world.moduleToken(x.a.admin);
});
afterAll(async () => {
  await t?.close();
});

describe('templates at intake and on the card', () => {
  let tid: string;
  it('title, list values, typed fields; the card shows the template and rendered details in layout order', async () => {
    const before = (
      await send([
        { detector: 'lpr.gate', occurred_at: iso(Date.now() - 5000), camera_id: cam1, payload: { plate: 'AB 123' } },
      ])
    )[0].id;
    tid = (await x.a.admin.post('/api/v1/templates', { name: unique('plates'), doc: PLATE_DOC })).body.id;
    // the template cache of the organisation was dropped by the change: the next batch applies it
    const [r] = await send([
      {
        detector: 'lpr.gate',
        occurred_at: iso(Date.now() - 4000),
        camera_id: cam1,
        detector_title: 'ignored by the template',
        payload: {
          plate: 'AB 123',
          speed: '57.5',
          vehicle: { kind: 'bus' },
          wrong_way: true,
          frame: 'f-1',
          note: 'n'.repeat(9000),
        },
      },
    ]);
    const c = await card(x.a.admin, r.id);
    expect(c.status, c.text).toBe(200);
    expect(c.headers['cache-control']).toBe('private, no-store');
    expect(c.body.event).toMatchObject({
      template_id: tid,
      detector_title: PLATE_DOC.title,
      list_values: [{ key: 'plate', value: 'AB 123' }],
    });
    expect(c.body.template).toEqual({
      id: tid,
      name: expect.any(String),
      version: 1,
      system: false,
      detector_match: 'lpr.*',
      title: PLATE_DOC.title,
      list_fields: PLATE_DOC.list_fields,
      attachment_fields: PLATE_DOC.attachment_fields,
      detail_layout: PLATE_DOC.detail_layout,
      fields: expect.any(Array),
    });
    expect(c.body.rendered).toEqual({
      title: PLATE_DOC.title,
      details: [
        { key: 'plate', label: 'Plate', format: 'string', value_labels: null, value: 'AB 123' },
        { key: 'kind', label: 'Kind', format: 'enum', value_labels: { car: 'car', bus: 'Bus' }, value: 'bus' },
        { key: 'speed', label: 'Speed', format: 'number', value_labels: null, value: 57.5 },
        { key: 'wrong_way', label: 'Wrong way', format: 'bool', value_labels: null, value: true },
        // a value over 8 KiB is replaced
        { key: 'note', label: 'Note', format: 'string', value_labels: null, value: { truncated: true, bytes: 9002 } },
        { key: 'frame', label: 'Frame', format: 'attachment', value_labels: null, value: 'f-1' },
      ],
    });
    const stored = await sql<{ fields: unknown }>`select fields from events where id = ${r.id}`.execute(
      t.db.database.db,
    );
    expect(stored.rows[0]!.fields).toEqual({
      plate: 'AB 123',
      speed: 57.5,
      kind: 'bus',
      wrong_way: true,
      note: 'n'.repeat(9000),
    });
    // an event stored before the template: no template
    expect((await card(x.a.admin, before)).body).toMatchObject({ template: null, rendered: { details: [] } });
    // rights: the operator sees cam1's card; a cam2 event is 404 for it
    expect((await card(x.a.operator, r.id)).status).toBe(200);
    const [h] = await send([
      { detector: 'lpr.gate', occurred_at: iso(Date.now() - 3000), camera_id: cam2, payload: { plate: 'ZZ 9' } },
    ]);
    expect((await card(x.a.operator, h.id)).body).toEqual({ error: 'not_found' });
    expect((await card(x.b.admin, r.id)).body).toEqual({ error: 'not_found' });
  });

  it('a disabled template no longer applies; the card of an event keeps its template', async () => {
    expect((await x.a.admin.patch(`/api/v1/templates/${tid}`, { enabled: false })).status).toBe(200);
    const [r] = await send([{ detector: 'lpr.gate', occurred_at: iso(Date.now() - 2000), payload: { plate: 'CD 4' } }]);
    expect((await card(x.a.admin, r.id)).body).toMatchObject({
      event: { template_id: null, list_values: [] },
      template: null,
    });
    expect((await x.a.admin.patch(`/api/v1/templates/${tid}`, { enabled: true })).status).toBe(200);
  });

  it('choice: an exact detector_match before a mask, the longer mask first', async () => {
    const exact = (
      await x.a.admin.post('/api/v1/templates', {
        name: unique('exact'),
        doc: { detector_match: 'lpr.gate.north', title: 'North' },
      })
    ).body.id;
    const longer = (
      await x.a.admin.post('/api/v1/templates', {
        name: unique('longer'),
        doc: { detector_match: 'lpr.gate.*', title: 'Gates' },
      })
    ).body.id;
    const res = await send(
      ['lpr.gate.north', 'lpr.gate.south', 'lpr.x'].map((d) => ({ detector: d, occurred_at: iso(Date.now() - 1000) })),
    );
    const ids = await Promise.all(res.map(async (r: any) => (await card(x.a.admin, r.id)).body.event.template_id));
    expect(ids).toEqual([exact, longer, tid]);
  });

  it('ignore_event of a system template: the event is not stored, its result says ignored', async () => {
    expect(
      (await x.root.patch('/api/v1/templates/00000000-0000-7000-8000-00000000a002', { doc: { ignore_event: true } }))
        .status,
    ).toBe(200);
    const res = await send([
      { detector: 'system.camera_offline', occurred_at: iso(Date.now() - 1000) },
      { detector: 'system.node_unreachable', occurred_at: iso(Date.now() - 1000), payload: { node_name: 'n1' } },
    ]);
    expect(res[0]).toEqual({ index: 0, ignored: true });
    const n = await sql<{
      n: number;
    }>`select count(*)::int as n from events where detector = 'system.camera_offline'`.execute(t.db.database.db);
    expect(n.rows[0]!.n).toBe(0);
    expect((await card(x.a.admin, res[1].id)).body).toMatchObject({
      event: { template_id: '00000000-0000-7000-8000-00000000a001', list_values: [{ key: 'node_name', value: 'n1' }] },
      rendered: {
        title: { en: 'Node unreachable' },
        details: [
          { key: 'node_name', value: 'n1' },
          { key: 'reason', value: null },
        ],
      },
    });
    expect(
      (await x.root.patch('/api/v1/templates/00000000-0000-7000-8000-00000000a002', { doc: { ignore_event: false } }))
        .status,
    ).toBe(200);
    expect((await send([{ detector: 'system.camera_offline', occurred_at: iso(Date.now() - 1000) }]))[0].id).toEqual(
      expect.any(String),
    );
  });
});

describe('coalescing and interval time-outs', () => {
  const job = () =>
    t.plane.services.jobs.runOnce(t.plane.services.events.jobs().find((j) => j.name === 'events.interval_timeouts')!);
  const row = async (id: string) =>
    (
      await sql<any>`select "interval", ended_at, last_seen_at, close_by from events where id = ${id}`.execute(
        t.db.database.db,
      )
    ).rows[0];

  it('repeats with equal source values inside the window extend one open interval; the job closes it at the last repeat', async () => {
    await x.a.admin.post('/api/v1/templates', {
      name: unique('co'),
      doc: { detector_match: 'door.forced', coalesce: { sources: ['/door'], window_secs: 60 } },
    });
    const t0 = Date.now() - 20 * 60_000;
    const a = await send([
      { detector: 'door.forced', occurred_at: iso(t0), camera_id: cam1, payload: { door: 'A' }, ext_id: 'c-1' },
      {
        detector: 'door.forced',
        occurred_at: iso(t0 + 30_000),
        camera_id: cam1,
        payload: { door: 'A' },
        ext_id: 'c-2',
      },
      { detector: 'door.forced', occurred_at: iso(t0 + 10_000), camera_id: cam1, payload: { door: 'B' } },
    ]);
    const open = a[0].id;
    expect(a[1].id).toBe(open);
    expect(a[2].id).not.toBe(open);
    // a later batch, still inside the window of the last repeat; a retry answers the same id
    const b = await send([
      { detector: 'door.forced', occurred_at: iso(t0 + 80_000), camera_id: cam1, payload: { door: 'A' } },
      {
        detector: 'door.forced',
        occurred_at: iso(t0 + 30_000),
        ext_id: 'c-2',
        camera_id: cam1,
        payload: { door: 'A' },
      },
    ]);
    expect(b.map((r: any) => r.id)).toEqual([open, open]);
    // past the window: a new interval
    const c = await send([
      { detector: 'door.forced', occurred_at: iso(t0 + 200_000), camera_id: cam1, payload: { door: 'A' } },
    ]);
    expect(c[0].id).not.toBe(open);
    expect(await row(open)).toMatchObject({
      interval: true,
      ended_at: null,
      last_seen_at: new Date(t0 + 80_000),
      close_by: new Date(t0 + 140_000),
    });
    const n = await sql<{ n: number }>`select count(*)::int as n from events where detector = 'door.forced'`.execute(
      t.db.database.db,
    );
    expect(n.rows[0]!.n).toBe(3);
    await job();
    expect((await row(open)).ended_at).toEqual(new Date(t0 + 80_000));
    expect((await row(c[0].id)).ended_at).toEqual(new Date(t0 + 200_000));
    expect((await card(x.a.admin, open)).body.event.ended_at).toBe(iso(t0 + 80_000));
  });

  it('interval_timeout_secs: the plane closes an open interval after that long', async () => {
    await x.a.admin.post('/api/v1/templates', {
      name: unique('to'),
      doc: { detector_match: 'presence', interval_timeout_secs: 60 },
    });
    const t0 = Date.now() - 5 * 60_000;
    const [old, fresh, closed] = await send([
      { detector: 'presence', occurred_at: iso(t0), interval: true },
      { detector: 'presence', occurred_at: iso(Date.now() - 1000), interval: true },
      { detector: 'presence', occurred_at: iso(t0), interval: true, ended_at: iso(t0 + 1000) },
    ]);
    expect((await row(old.id)).close_by).toEqual(new Date(t0 + 60_000));
    expect((await row(closed.id)).close_by).toBeNull();
    await job();
    expect((await row(old.id)).ended_at).toEqual(new Date(t0 + 60_000));
    expect((await row(fresh.id)).ended_at).toBeNull();
    expect(t.plane.services.jobs.list().find((j) => j.name === 'events.interval_timeouts')).toMatchObject({
      last_error: null,
    });
  });
});
