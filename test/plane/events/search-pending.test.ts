import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { unique } from '../inventory.helpers.js';
import { cleanPendingSearchEntries } from '../../../src/plane/events/feed/search-pending.js';
import { searchStore } from '../../../src/plane/events/feed/search.store.js';

/**
 * The events.search_pending job: new search entries wait in each GIN index's pending list, which
 * every search reads whole; the job moves them into the index of every day partition.
 */
let t: TestPlane;
let root: Client;
let mod: Client;

beforeAll(async () => {
  t = await startPlane();
  root = await login(t.plane.app);
  const org = (await root.post('/api/v1/orgs', { name: unique('sp') })).body.id;
  expect(
    (
      await root.post('/api/v1/templates', {
        name: unique('t'),
        org_id: org,
        doc: {
          detector_match: 'lpr.*',
          fields: [{ key: 'plate', label: 'Plate', source: '/plate', type: 'string' }],
        },
      })
    ).status,
  ).toBe(201);
  mod = new Client(
    t.plane.app,
    (await root.post('/api/v1/module-tokens', { name: unique('m'), org_id: org, rate_limit: 100000 })).body.secret,
  );
});
afterAll(async () => {
  await t?.close();
});

describe('events.search_pending', () => {
  it("is one of the plane's jobs", async () => {
    const deadline = Date.now() + 5000;
    let job = t.plane.services.jobs.list().find((j) => j.name === 'events.search_pending');
    while (job && job.runs === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      job = t.plane.services.jobs.list().find((j) => j.name === 'events.search_pending');
    }
    expect(job).toMatchObject({ failures: 0, last_error: null });
    expect(job!.runs).toBeGreaterThan(0);
  });

  it('lists the search index of every day partition, newest first', async () => {
    const indexes = await searchStore.partitionSearchIndexes(t.db.database.db);
    // 32 days back to 3 ahead, made at start
    expect(indexes.length).toBeGreaterThanOrEqual(35);
    expect([...indexes].sort().reverse()).toEqual(indexes);
  });

  it('empties the pending lists of partitions that received rows; a second run finds nothing; searches still find the rows', async () => {
    const db = t.db.database.db;
    await cleanPendingSearchEntries(db, Date.now() + 60_000);
    const events = Array.from({ length: 200 }, (_, i) => ({
      detector: 'lpr.gate',
      occurred_at: new Date(Date.now() - 60_000 - i * 1000).toISOString(),
      payload: { plate: `SP${i}` },
    }));
    const r = await mod.post('/api/v1/events', { events });
    expect(r.status, r.text).toBe(200);
    expect(await cleanPendingSearchEntries(db, Date.now() + 60_000)).toBeGreaterThan(0);
    expect(await cleanPendingSearchEntries(db, Date.now() + 60_000)).toBe(0);
    const found = await root.get(`/api/v1/events?q=${encodeURIComponent('plate:sp17')}`);
    expect(found.status, found.text).toBe(200);
    expect(found.body.rows.map((x: { id: string }) => x.id)).toEqual([r.body.results[17].id]);
  });

  it('stops at its deadline and leaves the rest to the next run', async () => {
    let calls = 0;
    const pages = await cleanPendingSearchEntries(t.db.database.db, 1, () => {
      calls++;
      return 2;
    });
    expect(pages).toBe(0);
    expect(calls).toBe(1);
  });
});
