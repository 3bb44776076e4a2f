import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, tenants, unique, type Tenants } from '../inventory.helpers.js';
import { sendEvents } from '../fixtures.js';
import type { Client } from '../client.js';
import { dedupeKey } from '../../../src/plane/notifications/match.js';
import { expandAll } from '../../../src/plane/notifications/outbox.expand.js';
import { eventFrames } from '../../../src/plane/events/index.js';

// The outbox (document 4 §13): the deliveries of new events are written in the events'
// transaction, on both intake paths and by system events; a rolled-back write leaves none;
// one per (event, rule, channel) with a stable dedupe_key; rules apply at once after a change.

describe('notification outbox', () => {
  let t: TestPlane;
  let x: Tenants;
  let world: Awaited<ReturnType<typeof cameraWorld>>;
  let mod: Client;
  const at = () => new Date().toISOString();
  // The plans the writes recorded, as delivery rows (what a worker's next round would do).
  const deliveries = async (eventIds: string[]) => {
    await expandAll(t.db.database.db, Date.now(), eventFrames);
    return (
      await sql<{
        event_id: string;
        rule_id: string;
        channel_id: string;
        dedupe_key: string;
      }>`select event_id::text, rule_id::text, channel_id::text, dedupe_key from notification_deliveries
        where event_id = any(${eventIds}::uuid[]) order by event_id, rule_id, channel_id`.execute(t.db.database.db)
    ).rows;
  };
  const channel = async (admin: Client) =>
    (
      await admin.post('/api/v1/notification-channels', {
        name: unique('hook'),
        kind: 'webhook',
        url: 'http://127.0.0.1:9/',
        secret: 's',
      })
    ).body.id as string;
  const rule = async (admin: Client, body: Record<string, unknown>) => {
    const r = await admin.post('/api/v1/notification-rules', { name: unique('rule'), ...body });
    expect(r.status, r.text).toBe(201);
    return r.body as { id: string; revision: number };
  };

  beforeAll(async () => {
    // The worker would try the deliveries meanwhile: this suite only counts them.
    t = await startPlane();
    t.plane.services.notifications.stop();
    x = await tenants(t);
    world = await cameraWorld(t, x);
    mod = await world.moduleToken(x.a.admin);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes one delivery per (event, rule, channel) on both intake paths, with a stable dedupe_key', async () => {
    const cam = await world.camera(x.a.admin);
    const [c1, c2] = [await channel(x.a.admin), await channel(x.a.admin)];
    const r = await rule(x.a.admin, { match: { detectors: ['door.*'] }, channel_ids: [c1, c2] });
    const plain = await sendEvents(mod, [
      { detector: 'door.open', occurred_at: at(), camera_id: cam },
      { detector: 'window.open', occurred_at: at(), camera_id: cam },
    ]);
    const full = await sendEvents(mod, [
      { detector: 'door.forced', occurred_at: at(), camera_id: cam, ext_id: unique('x') },
    ]);
    const rows = await deliveries([...plain, ...full]);
    const want = [plain[0]!, full[0]!].flatMap((e) =>
      [c1, c2].map((c) => ({ event_id: e, rule_id: r.id, channel_id: c, dedupe_key: dedupeKey(e, r.id, c) })),
    );
    expect(rows).toEqual(want.sort((a, b) => (a.event_id + a.channel_id < b.event_id + b.channel_id ? -1 : 1)));
    // Another organisation's rule never sees these events.
    const bRule = await rule(x.b.admin, { channel_ids: [await channel(x.b.admin)] });
    const more = await sendEvents(mod, [{ detector: 'door.open', occurred_at: at(), camera_id: cam }]);
    expect((await deliveries(more)).map((d) => d.rule_id)).not.toContain(bRule.id);
  });

  it('a rule change, a disabled rule or channel act on the next event (every process drops its cached rules)', async () => {
    const ch = await channel(x.a.admin);
    const r = await rule(x.a.admin, { match: { detectors: ['bell'] }, channel_ids: [ch] });
    const first = await sendEvents(mod, [{ detector: 'bell', occurred_at: at() }]);
    expect(await deliveries(first)).toHaveLength(1);
    await x.a.admin.patch(`/api/v1/notification-rules/${r.id}`, { revision: r.revision, enabled: false });
    const second = await sendEvents(mod, [{ detector: 'bell', occurred_at: at() }]);
    expect(await deliveries(second)).toHaveLength(0);
    const r2 = await rule(x.a.admin, { match: { detectors: ['bell'] }, channel_ids: [ch] });
    const ch1 = (await x.a.admin.get(`/api/v1/notification-channels/${ch}`)).body;
    await x.a.admin.patch(`/api/v1/notification-channels/${ch}`, { revision: ch1.revision, enabled: false });
    const third = await sendEvents(mod, [{ detector: 'bell', occurred_at: at() }]);
    expect(await deliveries(third)).toHaveLength(0);
    expect(r2.id).toBeDefined();
  });

  it('cameras by id or tag; camera-less events only to rules without camera filters; severity, open_only', async () => {
    const tag = (await x.a.admin.post('/api/v1/tags', { name: unique('tag') })).body.id;
    const tagged = await world.camera(x.a.admin, [tag]);
    const plainCam = await world.camera(x.a.admin);
    const ch = await channel(x.a.admin);
    const byTag = await rule(x.a.admin, { match: { detectors: ['glass'], tag_ids: [tag] }, channel_ids: [ch] });
    const urgent = await rule(x.a.admin, {
      match: { detectors: ['glass'], severity_min: 3, open_only: true },
      channel_ids: [ch],
    });
    const ids = await sendEvents(mod, [
      { detector: 'glass', occurred_at: at(), camera_id: tagged, severity: 'critical', interval: true },
      { detector: 'glass', occurred_at: at(), camera_id: plainCam, severity: 'critical' },
      { detector: 'glass', occurred_at: at(), severity: 'error', interval: true },
      { detector: 'glass', occurred_at: at(), camera_id: plainCam, severity: 'info', interval: true },
    ]);
    const got = (await deliveries(ids)).map(
      (d) => `${ids.indexOf(d.event_id)}:${d.rule_id === byTag.id ? 'tag' : 'urgent'}`,
    );
    expect(got.sort()).toEqual(['0:tag', '0:urgent', '2:urgent']);
    expect(urgent.id).toBeDefined();
  });

  it('a cooldown per rule and camera sends the first event and counts the others as suppressed', async () => {
    const [c1, c2] = [await world.camera(x.a.admin), await world.camera(x.a.admin)];
    const ch = await channel(x.a.admin);
    const r = await rule(x.a.admin, { match: { detectors: ['knock'] }, cooldown_secs: 600, channel_ids: [ch] });
    const now = Date.now();
    const ids = await sendEvents(mod, [
      { detector: 'knock', occurred_at: new Date(now - 5000).toISOString(), camera_id: c1 },
      { detector: 'knock', occurred_at: new Date(now - 4000).toISOString(), camera_id: c1 },
      { detector: 'knock', occurred_at: new Date(now - 3000).toISOString(), camera_id: c2 },
    ]);
    const later = await sendEvents(mod, [
      { detector: 'knock', occurred_at: new Date(now).toISOString(), camera_id: c1 },
    ]);
    expect((await deliveries([...ids, ...later])).map((d) => d.event_id).sort()).toEqual([ids[0], ids[2]].sort());
    expect((await x.a.admin.get(`/api/v1/notification-rules/${r.id}`)).body.suppressed_count).toBe(2);
  });

  it('a rolled-back event write leaves no delivery; the committed one leaves its deliveries', async () => {
    const ch = await channel(x.a.admin);
    await rule(x.a.admin, { match: { detectors: ['system.evidence_storage_pressure'] }, channel_ids: [ch] });
    const open = {
      detector: 'system.evidence_storage_pressure' as const,
      orgId: x.a.orgId,
      occurredAt: Date.now(),
      interval: false,
      severity: 3,
      nodeId: null,
      nodeName: null,
      cameraId: null,
      cameraName: null,
      payload: {},
    };
    const db = t.db.database.db;
    const system = t.plane.services.events.system;
    let written: Awaited<ReturnType<typeof system.write>> = null;
    await expect(
      db.transaction().execute(async (trx) => {
        written = await system.write(trx, [open], [], Date.now());
        throw new Error('the caller fails after the events were written');
      }),
    ).rejects.toThrow('the caller fails');
    const gone = written!.frames.map((f) => f.id);
    expect(gone).toHaveLength(1);
    expect(await deliveries(gone)).toHaveLength(0);
    const kept = await db
      .transaction()
      .execute((trx) => system.write(trx, [{ ...open, occurredAt: Date.now() }], [], Date.now()));
    expect(await deliveries(kept!.frames.map((f) => f.id))).toHaveLength(1);
  });

  it('a write records one plan row for all its deliveries; the delivery log shows them at once', async () => {
    const cam = await world.camera(x.a.admin);
    const [c1, c2] = [await channel(x.a.admin), await channel(x.a.admin)];
    await rule(x.a.admin, { match: { detectors: ['plan.*'] }, channel_ids: [c1, c2] });
    const plans = async () =>
      (
        await sql<{ n: number; events: number; pairs: number }>`select count(*)::int as n,
            coalesce(sum(cardinality(event_ids)), 0)::int as events, coalesce(sum(jsonb_array_length(pairs)), 0)::int as pairs
          from notification_outbox
          where org_id = ${x.a.orgId}::uuid`.execute(t.db.database.db)
      ).rows[0]!;
    expect((await plans()).n).toBe(0);
    const ids = await sendEvents(
      mod,
      Array.from({ length: 5 }, (_, i) => ({ detector: `plan.${i}`, occurred_at: at(), camera_id: cam })),
    );
    // No worker runs here (stopped above): the write's plan waits, one row for its 10 deliveries
    // (5 events, each to the same 2 pairs of rule and channel).
    expect(await plans()).toEqual({ n: 1, events: 5, pairs: 2 });
    const listed = await x.a.admin.get(`/api/v1/notification-deliveries?event_id=${ids[0]}`);
    expect(listed.status).toBe(200);
    expect(listed.body.rows.map((d: { channel_id: string }) => d.channel_id).sort()).toEqual([c1, c2].sort());
    expect(listed.body.rows.every((d: { state: string }) => d.state === 'pending')).toBe(true);
    expect((await plans()).n).toBe(0);
    expect(await deliveries(ids)).toHaveLength(10);
  });

  it("the log pages oldest first, or newest first with order=newest (the console's)", async () => {
    const ch = await channel(x.a.admin);
    await rule(x.a.admin, { match: { detectors: ['order.*'] }, channel_ids: [ch] });
    for (let i = 0; i < 5; i++) await sendEvents(mod, [{ detector: `order.${i}`, occurred_at: at() }]);
    const walk = async (order: string) => {
      const ids: string[] = [];
      let after: string | null = null;
      do {
        const r = await x.a.admin.get(
          `/api/v1/notification-deliveries?channel_id=${ch}&limit=2${order}${after ? `&after=${after}` : ''}`,
        );
        expect(r.status, r.text).toBe(200);
        ids.push(...r.body.rows.map((d: { id: string }) => d.id));
        after = r.body.next;
      } while (after);
      return ids;
    };
    const oldest = await walk('');
    expect(oldest).toHaveLength(5);
    expect([...oldest].sort()).toEqual(oldest);
    expect(await walk('&order=oldest')).toEqual(oldest);
    expect(await walk('&order=newest')).toEqual([...oldest].reverse());
    expect((await x.a.admin.get('/api/v1/notification-deliveries?order=up')).status).toBe(400);
  });

  it('a rule or channel deleted before its plan is expanded sends nothing of it', async () => {
    const [c1, c2] = [await channel(x.a.admin), await channel(x.a.admin)];
    const keep = await rule(x.a.admin, { match: { detectors: ['gone'] }, channel_ids: [c1] });
    const drop = await rule(x.a.admin, { match: { detectors: ['gone'] }, channel_ids: [c2] });
    const ids = await sendEvents(mod, [{ detector: 'gone', occurred_at: at() }]);
    expect((await x.a.admin.del(`/api/v1/notification-rules/${drop.id}`)).status).toBe(200);
    const rows = await deliveries(ids);
    expect(rows.map((d) => d.rule_id)).toEqual([keep.id]);
    // The kept rule now sends to a channel deleted before the next write's plan is expanded.
    const ch = (await x.a.admin.get(`/api/v1/notification-channels/${c1}`)).body;
    const other = await channel(x.a.admin);
    const k = (await x.a.admin.get(`/api/v1/notification-rules/${keep.id}`)).body;
    await x.a.admin.patch(`/api/v1/notification-rules/${keep.id}`, { revision: k.revision, channel_ids: [c1, other] });
    const next = await sendEvents(mod, [{ detector: 'gone', occurred_at: at() }]);
    const k2 = (await x.a.admin.get(`/api/v1/notification-rules/${keep.id}`)).body;
    await x.a.admin.patch(`/api/v1/notification-rules/${keep.id}`, { revision: k2.revision, channel_ids: [other] });
    expect((await x.a.admin.del(`/api/v1/notification-channels/${c1}`)).status).toBe(200);
    expect(ch.id).toBe(c1);
    expect((await deliveries(next)).map((d) => d.channel_id)).toEqual([other]);
  });

  it('the one-statement write plans only the events it inserted; a removed event sends nothing', async () => {
    const own = await world.camera(x.a.admin);
    const foreign = await world.camera(x.b.admin);
    const ch = await channel(x.a.admin);
    await rule(x.a.admin, { match: { detectors: ['mixed'] }, channel_ids: [ch] });
    const r = await mod.post('/api/v1/events', {
      events: [
        { detector: 'mixed', occurred_at: at(), camera_id: own },
        { detector: 'mixed', occurred_at: at(), camera_id: foreign },
        { detector: 'mixed', occurred_at: at(), camera_id: own },
      ],
    });
    expect(r.status, r.text).toBe(200);
    const written: string[] = r.body.results.flatMap((i: { id?: string }) => (i.id ? [i.id] : []));
    expect(written).toHaveLength(2);
    const db = t.db.database.db;
    const plan = (
      await sql<{ event_ids: string[] }>`select event_ids::text[] from notification_outbox
        where org_id = ${x.a.orgId}::uuid order by id desc limit 1`.execute(db)
    ).rows[0]!;
    expect(plan.event_ids).toEqual(written);
    // The first event is removed before a worker takes the plan: only the second is sent.
    await sql`delete from events where id = ${written[0]}::uuid`.execute(db);
    expect((await deliveries(written)).map((d) => d.event_id)).toEqual([written[1]]);
  });
});
