import { beforeAll, describe, expect, it } from 'vitest';
import type { TestPlane } from '../harness.js';
import type { ManualClock } from '../../../src/common/clock.js';
import type { Client } from '../client.js';
import type { Tenants } from '../inventory.helpers.js';
import { SseReader } from '../sse-client.js';
import { SWEEP_MS, sweeperWorld } from './sweeper.world.js';

const w = sweeperWorld();
let t: TestPlane;
let x: Tenants;
let clock: ManualClock;
beforeAll(() => {
  ({ t, x, clock } = w);
});
const { db, node, secondPlane, sweep, eventsOf, rootOrg, nodeRow, status } = w;

describe('sweeper: system.node_unreachable', () => {
  it('a node that stops answering opens one interval per organisation with cameras on it; answering again closes it', async () => {
    const n = await node([
      [x.a.admin, 1],
      [x.b.admin, 1],
    ]);
    await sweep();
    expect(await nodeRow(n.id)).toMatchObject({ state: 'reachable', version: '1.2.3', unreachable_since: null });
    expect(new Date((await nodeRow(n.id)).last_seen_at!).getTime()).toBe(clock.now());
    // The sweep's two reads (the camera writes and the reconcile also ask the node, with the same token).
    expect(n.fake.requests.filter((r) => r.method === 'GET').map((r) => r.authorization)).toEqual([
      `Bearer ${n.fake.token}`,
      `Bearer ${n.fake.token}`,
    ]);
    expect(n.fake.requests.every((r) => r.authorization === `Bearer ${n.fake.token}`)).toBe(true);

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
        category: 'system',
        interval: true,
        ended_at: null,
        camera_id: null,
        node_id: n.id,
        severity: 3,
        token_id: null,
        template_id: '00000000-0000-7000-8000-00000000a001',
        payload: { reason: 'timeout' },
      });
      expect(new Date(e.occurred_at).getTime()).toBe(downAt);
    }
    expect((await nodeRow(n.id)).state).toBe('unreachable');

    const frames: any[] = [];
    const stop = await t.db.database.listen('argus_events', (p) =>
      frames.push(...(JSON.parse(p) as any[]).flatMap((b) => b.frames ?? [])),
    );
    try {
      n.fake.mode = 'up';
      await sweep();
      const upAt = clock.now();
      const closed = await eventsOf('system.node_unreachable', { node_id: n.id });
      expect(closed).toHaveLength(2);
      for (const e of closed) expect(new Date(e.ended_at!).getTime()).toBe(upAt);
      for (let i = 0; i < 100 && frames.filter((f) => f.node_id === n.id && f.updated).length < 2; i++)
        await new Promise((r) => setTimeout(r, 20));
      expect(frames.filter((f) => f.node_id === n.id && f.updated)).toHaveLength(2);
      expect(frames.find((f) => f.node_id === n.id)).toMatchObject({
        category: 'system',
        detector: 'system.node_unreachable',
        ended_at: new Date(upAt).toISOString(),
      });
    } finally {
      await stop();
    }
    expect(await nodeRow(n.id)).toMatchObject({ state: 'reachable', unreachable_since: null });

    // down again: a new interval
    n.fake.mode = 'error';
    await sweep();
    const again = await eventsOf('system.node_unreachable', { node_id: n.id });
    expect(again).toHaveLength(4);
    expect(again.filter((e) => e.ended_at === null).map((e) => e.payload)).toEqual([
      { node_name: expect.any(String), reason: 'http_500' },
      { node_name: expect.any(String), reason: 'http_500' },
    ]);
  });

  it('the organisation admins see the event in their feed; the other organisation does not', async () => {
    const n = await node([[x.a.admin, 1]]);
    n.fake.mode = 'hang';
    await sweep();
    const feedA = (await x.a.admin.get(`/api/v1/events?category=system`)).body.rows.filter(
      (e: any) => e.node_id === n.id,
    );
    expect(feedA).toHaveLength(1);
    expect(feedA[0]).toMatchObject({ detector: 'system.node_unreachable', category: 'system', ended_at: null });
    expect(
      (await x.b.admin.get(`/api/v1/events?category=system`)).body.rows.filter((e: any) => e.node_id === n.id),
    ).toEqual([]);
  });

  it("a node without cameras reports to the first superadmin's organisation; a wrong token is unreachable too", async () => {
    const n = await node([], 'not-the-node-token-000000');
    await sweep();
    const [e, ...rest] = await eventsOf('system.node_unreachable', { node_id: n.id });
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ org_id: await rootOrg(), payload: { reason: 'http_401' } });
    expect(n.fake.requests.every((r) => r.authorization === 'Bearer not-the-node-token-000000')).toBe(true);
    // the token never reaches logs
    expect(t.logs.text).not.toContain('not-the-node-token-000000');
  });

  it('a token changed through the API is the one the next sweep sends (the opened token is kept per sealed text)', async () => {
    const n = await node([], 'not-the-node-token-111111');
    await sweep();
    expect((await nodeRow(n.id)).state).toBe('unreachable');
    expect((await x.root.patch(`/api/v1/nodes/${n.id}`, { api_token: n.fake.token })).status).toBe(200);
    const before = n.fake.requests.length;
    await sweep();
    expect((await nodeRow(n.id)).state).toBe('reachable');
    const after = n.fake.requests.slice(before);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => r.authorization === `Bearer ${n.fake.token}`)).toBe(true);
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
      const up = {
        reachable: true as const,
        system: { version: '9' },
        streams: [
          { name: `${n.cameras[0]}_main`, state: 'live' },
          { name: `${n.cameras[1]}_main`, state: 'live' },
        ],
      };
      await Promise.all([
        t.plane.services.sweeper.apply(n.id, at, up),
        other.plane.services.sweeper.apply(n.id, at, up),
      ]);
      const [e] = await eventsOf('system.node_unreachable', { node_id: n.id });
      expect(new Date(e!.ended_at!).getTime()).toBe(at);
      expect((await eventsOf('system.camera_offline', { camera_id: n.cameras[1] }))[0]!.ended_at).not.toBeNull();
      const down = { reachable: false as const, reason: 'timeout' };
      clock.advance(1000);
      await Promise.all([
        t.plane.services.sweeper.apply(n.id, clock.now(), down),
        other.plane.services.sweeper.apply(n.id, clock.now(), down),
      ]);
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
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam], tag_ids: [] })).status,
    ).toBe(200);
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
      expect(mine(admin)[0]).toMatchObject({
        category: 'system',
        camera_id: cam,
        org_id: x.a.orgId,
        interval: true,
        ended_at: null,
        severity: 2,
        template_id: '00000000-0000-7000-8000-00000000a002',
      });
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
    const claim = (await db().selectFrom('nodes').select('polled_at').where('id', '=', n.id).executeTakeFirstOrThrow())
      .polled_at!;
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
