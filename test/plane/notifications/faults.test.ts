import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../../src/plane/db/database.js';
import type { Database } from '../../../src/plane/db/database.types.js';
import { freshDatabase, startPlane, testConfig, type TestDb, type TestPlane } from '../harness.js';
import { cameraWorld, tenants, unique, type Tenants } from '../inventory.helpers.js';
import type { Client } from '../client.js';
import { dedupeKey } from '../../../src/plane/notifications/match.js';
import { Receiver, until } from './receiver.js';

// Faults (issue 24): two plane processes on one database deliver each event once; a receiver
// that is down while 10,000 matching events arrive gets every one of them once it is up again,
// a repeat only ever with the same dedupe_key. Separate pools on a PostgreSQL server.

const onServer = !!process.env.TEST_DATABASE_URL;
const notifications = { channelRate: 5000, smtp: null };

async function rig(t: TestPlane, x: Tenants, url: string, detector: string) {
  const world = await cameraWorld(t, x);
  const mod = await world.moduleToken(x.a.admin, 1_000_000);
  const ch = (
    await x.a.admin.post('/api/v1/notification-channels', { name: unique('hook'), kind: 'webhook', url, secret: 's' })
  ).body.id as string;
  const rule = (
    await x.a.admin.post('/api/v1/notification-rules', {
      name: unique('rule'),
      match: { detectors: [detector] },
      channel_ids: [ch],
    })
  ).body.id as string;
  return { mod, ch, rule };
}

async function send(mod: Client, detector: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i += 500) {
    const items = Array.from({ length: Math.min(500, n - i) }, () => ({
      detector,
      occurred_at: new Date().toISOString(),
    }));
    const r = await mod.post('/api/v1/events', { events: items });
    expect(r.status, r.text).toBe(200);
    ids.push(...r.body.results.map((x: { id: string }) => x.id));
  }
  return ids;
}

describe.skipIf(!onServer)('notification faults (PostgreSQL server)', () => {
  let db: TestDb;
  let a: TestPlane;
  let b: TestPlane;
  let x: Tenants;
  let observer: Database;
  const cleanup: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    db = await freshDatabase();
    a = await startPlane({ db, config: { notifications } });
    const second = await openDatabase({ kind: 'postgres', url: db.url! });
    cleanup.push(() => second.close());
    // The test's own reads, on a pool no plane's heartbeat severs (a loaded machine may make one miss).
    observer = await openDatabase({ kind: 'postgres', url: db.url! });
    cleanup.push(() => observer.close());
    b = await startPlane({ db: { database: second, url: db.url, drop: async () => {} }, config: { notifications } });
    x = await tenants(a);
  }, 120_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    for (const c of cleanup) await c();
    await db?.drop();
  });

  it('two plane processes on one database: every event delivered exactly once while healthy', async () => {
    const receiver = await new Receiver().up();
    const { mod, ch, rule } = await rig(a, x, receiver.url, 'twice');
    const ids = await send(mod, 'twice', 2000);
    await until(() => receiver.got.length >= ids.length, 'every event received', 120_000);
    await new Promise((r) => setTimeout(r, 500)); // a late duplicate would arrive now
    const counts = receiver.counts();
    expect(counts.size).toBe(ids.length);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(new Set(counts.keys())).toEqual(new Set(ids.map((id) => dedupeKey(id, rule, ch))));
    // Both processes took part.
    expect(a.plane.services.notifications.worker.sent).toBeGreaterThan(0);
    expect(b.plane.services.notifications.worker.sent).toBeGreaterThan(0);
    await receiver.down();
  }, 180_000);

  it('a receiver down while 10,000 matching events arrive gets every one once it is up, repeats only with the same dedupe_key', async () => {
    const receiver = await new Receiver().up();
    const { mod, ch, rule } = await rig(a, x, receiver.url, 'outage');
    await receiver.down();
    const ids = await send(mod, 'outage', 10_000);
    const failed = async () =>
      Number(
        (
          await sql<{ n: number }>`select count(*)::int as n from notification_deliveries
            where rule_id = ${rule}::uuid and state = 'failed'`.execute(observer.db)
        ).rows[0]!.n,
      );
    await until(async () => (await failed()) === ids.length, 'every delivery tried and failed', 180_000);
    await receiver.up();
    await until(() => receiver.counts().size === ids.length, 'every event received after the outage', 300_000);
    const want = new Set(ids.map((id) => dedupeKey(id, rule, ch)));
    for (const g of receiver.got) {
      expect(want.has(g.json.dedupe_key)).toBe(true);
      expect(g.json.dedupe_key).toBe(dedupeKey(g.json.event.id as string, rule, ch));
    }
    // The receiver counts a message before its sender has recorded the 2xx: the last few settle after.
    const states = async () =>
      (
        await sql<{ state: string; n: number }>`select state, count(*)::int as n from notification_deliveries
          where rule_id = ${rule}::uuid group by state`.execute(observer.db)
      ).rows;
    await until(async () => (await states()).length === 1, 'every delivery recorded as sent', 60_000);
    expect(await states()).toEqual([{ state: 'sent', n: ids.length }]);
    await receiver.down();
  }, 600_000);

  it('a process with deliver = false records deliveries and sends none; a delivering one sends them', async () => {
    const quiet = await openDatabase({ kind: 'postgres', url: db.url! });
    cleanup.push(() => quiet.close());
    const c = await startPlane({
      db: { database: quiet, url: db.url, drop: async () => {} },
      config: { notifications: { ...notifications, deliver: false } },
    });
    try {
      const receiver = await new Receiver().up();
      const { mod, rule } = await rig(c, x, receiver.url, 'quiet');
      a.plane.services.notifications.worker.stop();
      b.plane.services.notifications.worker.stop();
      const ids = await send(mod, 'quiet', 50);
      await c.plane.services.notifications.worker.poll();
      const pending = async () =>
        Number(
          // Unsent: delivery rows never tried and deliveries still planned in the outbox.
          (
            await sql<{ n: number }>`select ((select count(*) from notification_deliveries
                where rule_id = ${rule}::uuid and attempts = 0)
              + (select coalesce(sum(cardinality(o.event_ids)), 0) from notification_outbox o
                where o.pairs @> jsonb_build_array(jsonb_build_array(${rule}::text))))::int as n`.execute(quiet.db)
          ).rows[0]!.n,
        );
      expect(await pending()).toBe(ids.length);
      expect(c.plane.services.notifications.worker.sent).toBe(0);
      expect(receiver.got).toHaveLength(0);
      // A delivering process (a fresh one: a and b were stopped) takes the outbox and sends.
      const d = await startPlane({
        db: { database: quiet, url: db.url, drop: async () => {} },
        config: { notifications },
      });
      try {
        await until(() => receiver.counts().size === ids.length, 'every event sent by the delivering process', 120_000);
        expect(await pending()).toBe(0);
        expect(c.plane.services.notifications.worker.sent).toBe(0);
      } finally {
        await d.close();
      }
      await receiver.down();
    } finally {
      await c.close();
    }
  }, 300_000);
});

// Without a server: the same plane configuration starts (the embedded database).
describe.skipIf(onServer)('notification faults need a PostgreSQL server', () => {
  it('parses the rate used above', () => {
    expect(testConfig({ notifications }).notifications.channelRate).toBe(5000);
  });
});
