import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDb } from '../harness.js';
import { DeliveryWorker, DELIVERIES_CHANNEL } from '../../../src/plane/notifications/worker.js';
import type { Dispatcher } from '../../../src/plane/notifications/dispatcher.js';
import type { LiveBus } from '../../../src/plane/live/bus.js';
import { systemClock } from '../../../src/common/clock.js';

// The wake of the other processes' workers after commits that recorded deliveries: one NOTIFY
// at a time and at most one every 10 ms however many commits, and a process skips its own.

let t: TestDb;
beforeAll(async () => {
  t = await freshDatabase();
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
