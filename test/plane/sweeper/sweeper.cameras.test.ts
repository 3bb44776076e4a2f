import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestPlane } from '../harness.js';
import type { ManualClock } from '../../../src/common/clock.js';
import type { Tenants } from '../inventory.helpers.js';
import { config, sweeperWorld } from './sweeper.world.js';

const w = sweeperWorld();
let t: TestPlane;
let x: Tenants;
let clock: ManualClock;
beforeAll(() => {
  ({ t, x, clock } = w);
});
const { db, node, secondPlane, sweep, eventsOf, rootOrg, nodeRow, status } = w;

describe('sweeper: cameras', () => {
  it('camera status follows its main stream; a failing or absent stream opens system.camera_offline, a serving one closes it', async () => {
    const n = await node([[x.a.admin, 1]]);
    const cam = n.cameras[0]!;
    expect(await status(x.a.admin, cam)).toBe('unavailable');
    const steps: Array<[string | null, string]> = [
      ['live', 'live'],
      ['degraded', 'degraded'],
      ['parked', 'live'],
      ['starting', 'unavailable'],
    ];
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
      org_id: x.a.orgId,
      node_id: n.id,
      camera_id: cam,
      category: 'system',
      interval: true,
      ended_at: null,
      severity: 2,
      template_id: '00000000-0000-7000-8000-00000000a002',
      payload: { reason: 'stream_failing' },
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
    const n = await node([
      [x.a.admin, 3],
      [x.b.admin, 2],
    ]);
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
    const apply = t.plane.services.sweeper.apply(n.id, clock.now(), {
      reachable: true,
      system: { version: '1' },
      streams: null,
    });
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
  const ignore = async (id: string, on: boolean) =>
    expect((await x.root.patch(`/api/v1/templates/${id}`, { doc: { ignore_event: on } })).status).toBe(200);

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
    await db()
      .insertInto('org_evidence_usage')
      .values({ org_id: x.a.orgId, bytes, attachments: 1 })
      .onConflict((oc) => oc.column('org_id').doUpdateSet({ bytes }))
      .execute();
  };
  // Each test starts below every watermark.
  beforeEach(async () => {
    await setBytes(0);
    await t.plane.services.pressure.check();
  });
  const pressure = () =>
    db()
      .selectFrom('events')
      .selectAll()
      .where('detector', '=', 'system.evidence_storage_pressure')
      .orderBy('seq')
      .execute();

  it('one instant event per watermark crossed upward; re-armed once used_percent falls back below', async () => {
    const check = () => {
      clock.advance(1000);
      return t.plane.services.pressure.check();
    };
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

    const evs = await pressure();
    expect(evs.map((e) => [e.payload.watermark, e.payload.level, e.severity])).toEqual([
      [70, 'low', 2],
      [70, 'low', 2],
      [85, 'high', 3],
      [95, 'critical', 4],
      [95, 'critical', 4],
    ]);
    for (const e of evs) {
      expect(e).toMatchObject({
        org_id: await rootOrg(),
        category: 'system',
        interval: false,
        ended_at: null,
        camera_id: null,
        node_id: null,
        template_id: '00000000-0000-7000-8000-00000000a003',
      });
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

  it("without max_bytes, used_percent is the volume's", async () => {
    const { volumeUsedPercent } = await import('../../../src/plane/evidence/fullness.js');
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
    } finally {
      await on.close();
    }
  });
});
