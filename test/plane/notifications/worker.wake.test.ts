import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { freshDatabase, type TestDb } from '../harness.js';
import { DeliveryWorker, DELIVERIES_CHANNEL } from '../../../src/plane/notifications/worker.js';
import type { Dispatcher } from '../../../src/plane/notifications/dispatcher.js';
import type { LiveBus } from '../../../src/plane/live/bus.js';
import { systemClock } from '../../../src/common/clock.js';
import { migrate } from '../../../src/plane/db/migrate.js';

// The wake of the other processes' workers after commits that recorded deliveries: one NOTIFY
// at a time and at most one every 10 ms however many commits, and a process skips its own.

let t: TestDb;
beforeAll(async () => {
  t = await freshDatabase();
  await migrate(t.database);
});
afterAll(async () => {
  await t?.drop();
});

const worker = () =>
  new DeliveryWorker(
    t.database.db,
    systemClock,
    {} as Dispatcher,
    // deliver: false, so nudge() pumps nothing and only the NOTIFYs are seen
    { channelRate: 10, concurrency: 1, batch: 10, deliver: false },
    { warn: () => {} },
    async () => new Map(),
  );

describe('delivery worker wakes', () => {
  it('sends one NOTIFY every 10 ms at most under a steady flow of commits, each naming the process', async () => {
    const got: string[] = [];
    const stop = await t.database.listen(DELIVERIES_CHANNEL, (p) => got.push(p));
    try {
      const w = worker();
      const t0 = performance.now();
      let commits = 0;
      // A commit about every millisecond for 120 ms (each woke the others alone before).
      while (performance.now() - t0 < 120) {
        w.nudge();
        commits++;
        await new Promise((r) => setTimeout(r, 0));
      }
      const elapsed = performance.now() - t0;
      // Until no NOTIFY has come for 50 ms.
      for (let i = 0, n = -1; i < 50 && got.length !== n; i++) {
        n = got.length;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(commits).toBeGreaterThan(30);
      expect(got.length).toBeGreaterThan(0);
      expect(got.length).toBeLessThanOrEqual(Math.ceil(elapsed / 10) + 2);
      expect(new Set(got).size).toBe(1);
      w.stop();
    } finally {
      await stop();
    }
  });

  it("is woken by another process's NOTIFY, never by its own", async () => {
    let handler: ((payload: string) => void) | null = null;
    const bus = { subscribe: (_c: string, h: (p: string) => void) => (handler = h) } as unknown as LiveBus;
    const pumps: string[] = [];
    const w = worker();
    w.subscribe(bus);
    // Count the pumps a wake asks for (the real pump claims; this test only watches who asked).
    (w as unknown as { pump: () => Promise<void> }).pump = async () => void pumps.push('pump');
    await w.poll();
    const own = await ownPayload(w);
    pumps.length = 0;
    handler!(own);
    expect(pumps).toEqual([]);
    handler!('another-process');
    expect(pumps).toEqual(['pump']);
    w.stop();
  });
});

describe('delivery worker rounds', () => {
  it('take plans after a commit, a wake or the poll, not on a round started for anything else', async () => {
    const db = t.database.db;
    const plans = async () =>
      Number((await sql<{ n: string }>`select count(*) as n from notification_outbox`.execute(db)).rows[0]!.n);
    // A plan of rules since deleted: taken and expanded to nothing.
    const addPlan = () =>
      sql`insert into notification_outbox (org_id, created_at, pairs, sets, event_ids, event_sets)
        values (gen_random_uuid(), now(), '[]', '[]', '{}', '{}')`.execute(db);
    const w = new DeliveryWorker(
      db,
      systemClock,
      { leaseMs: 60_000 } as Dispatcher,
      { channelRate: 10, concurrency: 1, batch: 10, deliver: true },
      { warn: () => {} },
      async () => new Map(),
    );
    await w.poll();
    // A plan whose wake never came (another process's, its NOTIFY lost): a round asked for by a
    // lane leaves it to the next poll.
    await addPlan();
    await w.pump();
    expect(await plans()).toBe(1);
    await w.poll();
    expect(await plans()).toBe(0);
    // This process's own commit takes its plan in the round its nudge starts.
    await addPlan();
    w.nudge();
    await w.pump();
    expect(await plans()).toBe(0);
    w.stop();
  });
});

/** The payload of this worker's own wake, as the others receive it. */
async function ownPayload(w: DeliveryWorker): Promise<string> {
  const got: string[] = [];
  const stop = await t.database.listen(DELIVERIES_CHANNEL, (p) => got.push(p));
  try {
    w.nudge();
    for (let i = 0; i < 100 && !got.length; i++) await new Promise((r) => setTimeout(r, 10));
    return got[0]!;
  } finally {
    await stop();
  }
}
