import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock, startPlane, testConfig, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';
import type { PlaneConfig } from '../../../src/plane/config/config.js';
import { openDatabase } from '../../../src/plane/db/database.js';
import { FakeNode } from './fake-node.js';
import { SseReader } from '../sse-client.js';

const SWEEP_MS = 5000;
const config: Partial<PlaneConfig> = {
  sweeper: { enabled: false, intervalMs: SWEEP_MS, timeoutMs: 300, concurrency: 4 },
  evidencePressure: { ...testConfig().evidencePressure, maxBytes: 1_000_000 },
};

let t: TestPlane;
let x: Tenants;
let clock: ManualClock;
const fakes: FakeNode[] = [];

beforeAll(async () => {
  clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
  t = await startPlane({ clock, config });
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
  await Promise.all(fakes.map((f) => f.close()));
});

const db = () => t.db.database.db;

/** A fake node registered in the plane (superadmin), with `cams` cameras per organisation client. */
async function node(cams: Array<[Client, number]> = [], token?: string): Promise<{ fake: FakeNode; id: string; cameras: string[] }> {
  const fake = await FakeNode.start();
  fakes.push(fake);
  const r = await x.root.post('/api/v1/nodes', { name: unique('node'), url: fake.url, api_token: token ?? fake.token });
  expect(r.status, r.text).toBe(201);
  const cameras: string[] = [];
  for (const [admin, n] of cams) {
    for (let i = 0; i < n; i++) {
      const c = await admin.post('/api/v1/cameras', { name: unique('cam'), node_id: r.body.id, main_source: 'rtsp://10.0.0.1/a' });
      expect(c.status, c.text).toBe(201);
      cameras.push(c.body.id);
    }
  }
  return { fake, id: r.body.id, cameras };
}

/** Another plane process on the same database: its own pool on a server (one handle for the embedded database). */
async function secondPlane(over: Partial<PlaneConfig> = config): Promise<{ plane: TestPlane; close(): Promise<void> }> {
  const database = t.db.url ? await openDatabase({ kind: 'postgres', url: t.db.url }) : t.db.database;
  const plane = await startPlane({ clock, config: over, db: { database, url: t.db.url, drop: async () => {} } });
  return { plane, async close() { await plane.close(); if (database !== t.db.database) await database.close(); } };
}

/** The next sweep: the clock moves one interval on, so every enabled node is due again. */
async function sweep(plane = t) {
  clock.advance(SWEEP_MS);
  return plane.plane.services.sweeper.sweep();
}

async function eventsOf(detector: string, where: { node_id?: string; camera_id?: string } = {}) {
  let q = db().selectFrom('events').selectAll().where('detector', '=', detector);
  if (where.node_id) q = q.where('node_id', '=', where.node_id);
  if (where.camera_id) q = q.where('camera_id', '=', where.camera_id);
  return q.orderBy('occurred_at').orderBy('org_id').execute();
}

const rootOrg = async () => (await db().selectFrom('users').select('org_id').where('login', '=', 'root').executeTakeFirstOrThrow()).org_id;
const nodeRow = (id: string) => db().selectFrom('nodes').select(['state', 'last_seen_at', 'version', 'unreachable_since']).where('id', '=', id).executeTakeFirstOrThrow();
const status = async (admin: Client, camera: string) => (await admin.get(`/api/v1/cameras/${camera}`)).body.status;

describe('sweeper: system.node_unreachable', () => {
  it('a node that stops answering opens one interval per organisation with cameras on it; answering again closes it', async () => {
    const n = await node([[x.a.admin, 1], [x.b.admin, 1]]);
    await sweep();
    expect(await nodeRow(n.id)).toMatchObject({ state: 'reachable', version: '1.2.3', unreachable_since: null });
    expect(new Date((await nodeRow(n.id)).last_seen_at!).getTime()).toBe(clock.now());
    expect(n.fake.requests.map((r) => r.authorization)).toEqual([`Bearer ${n.fake.token}`, `Bearer ${n.fake.token}`]);

    n.fake.mode = 'hang';
    await sweep();
    const downAt = clock.now();
    await sweep();
    await sweep();
    const open = await eventsOf('system.node_unreachable', { node_id: n.id });
    expect(open).toHaveLength(2);
    expect(open.map((e) => e.org_id).sort()).toEqual([x.a.orgId, x.b.orgId].sort());
    for (const e of open) {
      expect(e).toMatchObject({
        category: 'system', interval: true, ended_at: null, camera_id: null, node_id: n.id, severity: 3, token_id: null,
        template_id: '00000000-0000-7000-8000-00000000a001', payload: { reason: 'timeout' },
      });
      expect(new Date(e.occurred_at).getTime()).toBe(downAt);
    }
    expect((await nodeRow(n.id)).state).toBe('unreachable');

    const frames: any[] = [];
    const stop = await t.db.database.listen('argus_events', (p) => frames.push(...(JSON.parse(p) as any[]).flatMap((b) => b.frames ?? [])));
    try {
      n.fake.mode = 'up';
      await sweep();
      const upAt = clock.now();
      const closed = await eventsOf('system.node_unreachable', { node_id: n.id });
      expect(closed).toHaveLength(2);
      for (const e of closed) expect(new Date(e.ended_at!).getTime()).toBe(upAt);
      for (let i = 0; i < 100 && frames.filter((f) => f.node_id === n.id && f.updated).length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      expect(frames.filter((f) => f.node_id === n.id && f.updated)).toHaveLength(2);
      expect(frames.find((f) => f.node_id === n.id)).toMatchObject({ category: 'system', detector: 'system.node_unreachable', ended_at: new Date(upAt).toISOString() });
    } finally { await stop(); }
    expect(await nodeRow(n.id)).toMatchObject({ state: 'reachable', unreachable_since: null });

    // down again: a new interval
    n.fake.mode = 'error';
    await sweep();
    const again = await eventsOf('system.node_unreachable', { node_id: n.id });
    expect(again).toHaveLength(4);
    expect(again.filter((e) => e.ended_at === null).map((e) => e.payload)).toEqual([{ node_name: expect.any(String), reason: 'http_500' }, { node_name: expect.any(String), reason: 'http_500' }]);
  });

  it('the organisation admins see the event in their feed; the other organisation does not', async () => {
    const n = await node([[x.a.admin, 1]]);
    n.fake.mode = 'hang';
    await sweep();
    const feedA = (await x.a.admin.get(`/api/v1/events?category=system`)).body.rows.filter((e: any) => e.node_id === n.id);
    expect(feedA).toHaveLength(1);
    expect(feedA[0]).toMatchObject({ detector: 'system.node_unreachable', category: 'system', ended_at: null });
    expect((await x.b.admin.get(`/api/v1/events?category=system`)).body.rows.filter((e: any) => e.node_id === n.id)).toEqual([]);
  });

  it('a node without cameras reports to the first superadmin\'s organisation; a wrong token is unreachable too', async () => {
    const n = await node([], 'not-the-node-token-000000');
    await sweep();
    const [e, ...rest] = await eventsOf('system.node_unreachable', { node_id: n.id });
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ org_id: await rootOrg(), payload: { reason: 'http_401' } });
    expect(n.fake.requests.every((r) => r.authorization === 'Bearer not-the-node-token-000000')).toBe(true);
    // the token never reaches logs
    expect(t.logs.text).not.toContain('not-the-node-token-000000');
  });

  it('a disabled node is no longer polled: its open interval closes and its cameras become unavailable', async () => {
    const n = await node([[x.a.admin, 1]]);
    n.fake.stream(n.cameras[0]!, 'live');
    await sweep();
    expect(await status(x.a.admin, n.cameras[0]!)).toBe('live');
    n.fake.mode = 'hang';
    await sweep();
    expect((await x.root.patch(`/api/v1/nodes/${n.id}`, { enabled: false })).status).toBe(200);
    const before = n.fake.requests.length;
    await sweep();
    expect(n.fake.requests.length).toBe(before);
    const [e] = await eventsOf('system.node_unreachable', { node_id: n.id });
    expect(new Date(e!.ended_at!).getTime()).toBe(clock.now());
    expect((await nodeRow(n.id)).state).toBe('disabled');
    expect(await status(x.a.admin, n.cameras[0]!)).toBe('unavailable');
    // enabled again: polled again, and down means a new interval
    expect((await x.root.patch(`/api/v1/nodes/${n.id}`, { enabled: true })).status).toBe(200);
    await sweep();
    expect((await nodeRow(n.id)).state).toBe('unreachable');
    expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toHaveLength(2);
    n.fake.mode = 'up';
    await sweep();
    expect((await nodeRow(n.id)).state).toBe('reachable');
    expect(await status(x.a.admin, n.cameras[0]!)).toBe('live');
  });
});

describe('sweeper: several plane processes on one database', () => {
  it('two app instances sweeping together write one event per transition', async () => {
    const second = await secondPlane();
    const other = second.plane;
    try {
      const n = await node([[x.a.admin, 2]]);
      n.fake.stream(n.cameras[0]!, 'live');
      n.fake.stream(n.cameras[1]!, 'failing');
      await Promise.all([sweep(), other.plane.services.sweeper.sweep()]);
      n.fake.mode = 'hang';
      for (let i = 0; i < 3; i++) {
        clock.advance(SWEEP_MS);
        await Promise.all([t.plane.services.sweeper.sweep(), other.plane.services.sweeper.sweep()]);
      }
      expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toHaveLength(1);
      expect(await eventsOf('system.camera_offline', { camera_id: n.cameras[1] })).toHaveLength(1);

      // Even when both poll the node (no claim to share), the state transition has one winner.
      const at = clock.now() + 1000;
      clock.advance(1000);
      const up = { reachable: true as const, system: { version: '9' }, streams: [{ name: `${n.cameras[0]}_main`, state: 'live' }, { name: `${n.cameras[1]}_main`, state: 'live' }] };
      await Promise.all([t.plane.services.sweeper.apply(n.id, at, up), other.plane.services.sweeper.apply(n.id, at, up)]);
      const [e] = await eventsOf('system.node_unreachable', { node_id: n.id });
      expect(new Date(e!.ended_at!).getTime()).toBe(at);
      expect((await eventsOf('system.camera_offline', { camera_id: n.cameras[1] }))[0]!.ended_at).not.toBeNull();
      const down = { reachable: false as const, reason: 'timeout' };
      clock.advance(1000);
      await Promise.all([t.plane.services.sweeper.apply(n.id, clock.now(), down), other.plane.services.sweeper.apply(n.id, clock.now(), down)]);
      expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toHaveLength(2);
    } finally {
      await second.close();
    }
  });
});

describe('system events on the live stream', () => {
  it('reach the organisation: the camera event whoever sees the camera, the node event its administrators only', async () => {
    const base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
    const n = await node([[x.a.admin, 1]]);
    const cam = n.cameras[0]!;
    expect((await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam], tag_ids: [] })).status).toBe(200);
    n.fake.stream(cam, 'live');
    await sweep();
    const open = (c: Client) => SseReader.open(`${base}/api/v1/events/stream`, { authorization: `Bearer ${c.token}` });
    const [admin, operator, other] = [await open(x.a.admin), await open(x.a.operator), await open(x.b.admin)];
    try {
      n.fake.stream(cam, 'failing');
      await sweep();
      n.fake.mode = 'hang';
      await sweep();
      const mine = (r: SseReader) => r.events.map((e) => e.data).filter((d) => d.node_id === n.id);
      await admin.until((r) => mine(r).length === 2);
      expect(mine(admin).map((d) => d.detector)).toEqual(['system.camera_offline', 'system.node_unreachable']);
      expect(mine(admin)[0]).toMatchObject({ category: 'system', camera_id: cam, org_id: x.a.orgId, interval: true, ended_at: null, severity: 2, template_id: '00000000-0000-7000-8000-00000000a002' });
      expect(mine(admin)[0].detector_title).toEqual({ en: 'Camera offline' });
      await operator.until((r) => mine(r).length >= 1);
      await new Promise((r) => setTimeout(r, 200));
      expect(mine(operator).map((d) => d.detector)).toEqual(['system.camera_offline']);
      expect(mine(other)).toEqual([]);
    } finally {
      for (const r of [admin, operator, other]) r.close();
    }
  });
});

describe('sweeper: stale results', () => {
  it('a poll result whose claim another process has taken over since changes nothing', async () => {
    const n = await node([[x.a.admin, 1]]);
    n.fake.stream(n.cameras[0]!, 'live');
    await sweep();
    const claim = (await db().selectFrom('nodes').select('polled_at').where('id', '=', n.id).executeTakeFirstOrThrow()).polled_at!;
    const stale = new Date(new Date(claim).getTime() - SWEEP_MS);
    await t.plane.services.sweeper.apply(n.id, clock.now(), { reachable: false, reason: 'timeout' }, stale);
    expect((await nodeRow(n.id)).state).toBe('reachable');
    expect(await status(x.a.admin, n.cameras[0]!)).toBe('live');
    expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toEqual([]);
    await t.plane.services.sweeper.apply(n.id, clock.now(), { reachable: false, reason: 'timeout' }, new Date(claim));
    expect((await nodeRow(n.id)).state).toBe('unreachable');
    expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toHaveLength(1);
  });
});

describe('sweeper: cameras', () => {
  it('camera status follows its main stream; a failing or absent stream opens system.camera_offline, a serving one closes it', async () => {
    const n = await node([[x.a.admin, 1]]);
    const cam = n.cameras[0]!;
    expect(await status(x.a.admin, cam)).toBe('unavailable');
    const steps: Array<[string | null, string]> = [['live', 'live'], ['degraded', 'degraded'], ['parked', 'live'], ['starting', 'unavailable']];
    for (const [state, expected] of steps) {
      n.fake.stream(cam, state);
      n.fake.stream(cam, 'failing', 'sub');
      await sweep();
      expect(await status(x.a.admin, cam), String(state)).toBe(expected);
    }
    expect(await eventsOf('system.camera_offline', { camera_id: cam })).toEqual([]);

    n.fake.stream(cam, 'failing');
    await sweep();
    const failAt = clock.now();
    await sweep();
    expect(await status(x.a.admin, cam)).toBe('failing');
    const list = (await x.a.admin.get('/api/v1/cameras')).body.rows.find((c: any) => c.id === cam);
    expect(list.status).toBe('failing');
    let evs = await eventsOf('system.camera_offline', { camera_id: cam });
    expect(evs).toHaveLength(1);
    expect(evs[0]).toMatchObject({
      org_id: x.a.orgId, node_id: n.id, camera_id: cam, category: 'system', interval: true, ended_at: null, severity: 2,
      template_id: '00000000-0000-7000-8000-00000000a002', payload: { reason: 'stream_failing' },
    });
    expect(new Date(evs[0]!.occurred_at).getTime()).toBe(failAt);
    expect(evs[0]!.list_values).toEqual([{ key: 'camera_name', value: expect.any(String) }]);

    n.fake.stream(cam, 'live');
    await sweep();
    evs = await eventsOf('system.camera_offline', { camera_id: cam });
    expect(new Date(evs[0]!.ended_at!).getTime()).toBe(clock.now());
    expect(await status(x.a.admin, cam)).toBe('live');

    n.fake.stream(cam, null);
    await sweep();
    evs = await eventsOf('system.camera_offline', { camera_id: cam });
    expect(evs).toHaveLength(2);
    expect(evs[1]).toMatchObject({ ended_at: null, payload: { reason: 'stream_absent' } });
    expect(await status(x.a.admin, cam)).toBe('unavailable');
  });

  it('an unreachable node makes its cameras unavailable without a camera_offline per camera', async () => {
    const n = await node([[x.a.admin, 3], [x.b.admin, 2]]);
    for (const c of n.cameras.slice(1)) n.fake.stream(c, 'live');
    await sweep();
    const offlineBefore = await eventsOf('system.camera_offline', { node_id: n.id });
    expect(offlineBefore).toHaveLength(1); // camera 0 has no stream
    n.fake.mode = 'hang';
    await sweep();
    await sweep();
    for (const c of n.cameras.slice(0, 3)) expect(await status(x.a.admin, c)).toBe('unavailable');
    for (const c of n.cameras.slice(3)) expect(await status(x.b.admin, c)).toBe('unavailable');
    expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toHaveLength(2);
    // no storm, and the interval that was open stays open: nothing is known of the camera meanwhile
    const offline = await eventsOf('system.camera_offline', { node_id: n.id });
    expect(offline).toHaveLength(1);
    expect(offline[0]!.ended_at).toBeNull();

    n.fake.mode = 'up';
    n.fake.stream(n.cameras[0]!, 'live');
    await sweep();
    for (const c of n.cameras.slice(0, 3)) expect(await status(x.a.admin, c)).toBe('live');
    expect((await eventsOf('system.camera_offline', { node_id: n.id }))[0]!.ended_at).not.toBeNull();
  });

  it('streams that cannot be listed leave the cameras as they were', async () => {
    const n = await node([[x.a.admin, 1]]);
    n.fake.stream(n.cameras[0]!, 'degraded');
    await sweep();
    expect(await status(x.a.admin, n.cameras[0]!)).toBe('degraded');
    const apply = t.plane.services.sweeper.apply(n.id, clock.now(), { reachable: true, system: { version: '1' }, streams: null });
    await apply;
    expect(await status(x.a.admin, n.cameras[0]!)).toBe('degraded');
  });
});

describe('sweeper: deleted subjects', () => {
  it('an interval left open by a deleted camera or node is closed within a minute', async () => {
    const n = await node([[x.a.admin, 1]]);
    const bare = await node();
    const held = await node([[x.a.admin, 1]]);
    bare.fake.mode = 'hang';
    held.fake.mode = 'hang';
    await sweep(); // the camera has no stream: offline; the bare node: unreachable
    expect(await eventsOf('system.camera_offline', { camera_id: n.cameras[0] })).toHaveLength(1);
    expect(await eventsOf('system.node_unreachable', { node_id: bare.id })).toHaveLength(1);
    expect((await x.a.admin.del(`/api/v1/cameras/${n.cameras[0]}`)).status).toBe(200);
    expect((await x.root.del(`/api/v1/nodes/${bare.id}`)).status).toBe(200);
    clock.advance(60_000);
    await sweep();
    const [cam] = await eventsOf('system.camera_offline', { camera_id: n.cameras[0] });
    const [nod] = await eventsOf('system.node_unreachable', { node_id: bare.id });
    expect(new Date(cam!.ended_at!).getTime()).toBe(clock.now());
    expect(new Date(nod!.ended_at!).getTime()).toBe(clock.now());
    // intervals whose subject still holds them stay open
    const [kept] = await eventsOf('system.node_unreachable', { node_id: held.id });
    expect(kept!.ended_at).toBeNull();
  });
});

describe('system templates: ignore_event', () => {
  const ignore = async (id: string, on: boolean) => expect((await x.root.patch(`/api/v1/templates/${id}`, { doc: { ignore_event: on } })).status).toBe(200);

  it('a superadmin who sets ignore_event stops the events; the state is still kept', async () => {
    const ids = ['00000000-0000-7000-8000-00000000a001', '00000000-0000-7000-8000-00000000a002'];
    for (const id of ids) await ignore(id, true);
    try {
      const n = await node([[x.a.admin, 1]]);
      n.fake.mode = 'hang';
      await sweep();
      expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toEqual([]);
      expect((await nodeRow(n.id)).state).toBe('unreachable');
      n.fake.mode = 'up';
      n.fake.stream(n.cameras[0]!, 'failing');
      await sweep();
      expect((await nodeRow(n.id)).state).toBe('reachable');
      expect(await status(x.a.admin, n.cameras[0]!)).toBe('failing');
      expect(await eventsOf('system.node_unreachable', { node_id: n.id })).toEqual([]);
      expect(await eventsOf('system.camera_offline', { camera_id: n.cameras[0] })).toEqual([]);
      // Clearing the flag does not replay the transition that was ignored; the next one is stored.
      for (const id of ids) await ignore(id, false);
      await sweep();
      expect(await eventsOf('system.camera_offline', { camera_id: n.cameras[0] })).toEqual([]);
      n.fake.stream(n.cameras[0]!, 'live');
      await sweep();
      n.fake.stream(n.cameras[0]!, 'failing');
      await sweep();
      expect(await eventsOf('system.camera_offline', { camera_id: n.cameras[0] })).toHaveLength(1);
    } finally {
      for (const id of ids) await ignore(id, false);
    }
  });
});

describe('system.evidence_storage_pressure', () => {
  const setBytes = async (bytes: number) => {
    await db().insertInto('org_evidence_usage').values({ org_id: x.a.orgId, bytes, attachments: 1 })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ bytes })).execute();
  };
  // Each test starts below every watermark.
  beforeEach(async () => { await setBytes(0); await t.plane.services.pressure.check(); });
  const pressure = () => db().selectFrom('events').selectAll().where('detector', '=', 'system.evidence_storage_pressure').orderBy('seq').execute();

  it('one instant event per watermark crossed upward; re-armed once used_percent falls back below', async () => {
    const check = () => { clock.advance(1000); return t.plane.services.pressure.check(); };
    await setBytes(100_000); // 10% of max_bytes
    expect(await check()).toEqual([]);
    await setBytes(700_000); // 70%: the low watermark, reached
    expect(await check()).toEqual([70]);
    expect(await check()).toEqual([]);
    await setBytes(800_000);
    expect(await check()).toEqual([]);
    await setBytes(600_000); // below low: re-armed
    expect(await check()).toEqual([]);
    await setBytes(720_000);
    expect(await check()).toEqual([70]);
    await setBytes(990_000); // past high and critical at once
    expect(await check()).toEqual([85, 95]);
    await setBytes(900_000); // below critical only
    expect(await check()).toEqual([]);
    await setBytes(960_000);
    expect(await check()).toEqual([95]);

    const home = await rootOrg();
    const evs = await pressure();
    expect(evs.map((e) => [e.payload.watermark, e.payload.level, e.severity])).toEqual([
      [70, 'low', 2], [70, 'low', 2], [85, 'high', 3], [95, 'critical', 4], [95, 'critical', 4],
    ]);
    for (const e of evs) {
      expect(e).toMatchObject({ org_id: await rootOrg(), category: 'system', interval: false, ended_at: null, camera_id: null, node_id: null, template_id: '00000000-0000-7000-8000-00000000a003' });
    }
    expect(evs[0]!.payload.used_percent).toBe(70);
    expect(evs[2]!.fields).toEqual({ used_percent: 99, watermark: 85 });
  });

  it('ignore_event on its template stores nothing; the level still moves', async () => {
    const id = '00000000-0000-7000-8000-00000000a003';
    expect((await x.root.patch(`/api/v1/templates/${id}`, { doc: { ignore_event: true } })).status).toBe(200);
    try {
      const before = (await pressure()).length;
      await setBytes(900_000);
      expect(await t.plane.services.pressure.check()).toEqual([70, 85]);
      expect(await pressure()).toHaveLength(before);
      expect(await t.plane.services.pressure.check()).toEqual([]);
    } finally {
      expect((await x.root.patch(`/api/v1/templates/${id}`, { doc: { ignore_event: false } })).status).toBe(200);
    }
  });

  it('two processes checking together fire a crossing once', async () => {
    const second = await secondPlane();
    const other = second.plane;
    try {
      const before = (await pressure()).length;
      await setBytes(750_000);
      const [a, b] = await Promise.all([t.plane.services.pressure.check(), other.plane.services.pressure.check()]);
      expect([...a, ...b]).toEqual([70]);
      expect(await pressure()).toHaveLength(before + 1);
    } finally {
      await second.close();
    }
  });

  it('without max_bytes, used_percent is the volume\'s', async () => {
    const { volumeUsedPercent } = await import('../../../src/plane/sweeper/evidence-pressure.js');
    const p = await volumeUsedPercent('/tmp/argus-does-not-exist/evidence');
    expect(p).toBeGreaterThan(0);
    expect(p).toBeLessThanOrEqual(100);
  });
});

describe('the sweeper jobs', () => {
  it('start with the plane when [sweeper] enabled, not otherwise', async () => {
    expect(t.plane.services.jobs.list().map((j) => j.name)).not.toContain('nodes.sweep');
    const on = await secondPlane({ ...config, sweeper: { ...config.sweeper!, enabled: true } });
    try {
      const names = on.plane.plane.services.jobs.list().map((j) => j.name);
      expect(names).toContain('nodes.sweep');
      expect(names).toContain('evidence.pressure');
    } finally { await on.close(); }
  });
});
