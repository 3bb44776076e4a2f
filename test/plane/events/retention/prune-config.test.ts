import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startPlane, ManualClock, type TestPlane } from '../../harness.js';
import { Client } from '../../client.js';
import { tenants, unique, type Tenants } from '../../inventory.helpers.js';

// [events] purge_record_retention_days reaches the named job events.prune_purge_records: with 2
// days, a removed attachment's record stays one day and is gone after three (default: 30 days).
const DAY = 86_400_000;
let t: TestPlane;
let x: Tenants;
let dir: string;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-prune-cfg-'));
  t = await startPlane({ clock, config: { evidence: { backend: 'local', dir }, purgeRecordRetentionDays: 2 } });
  x = await tenants(t);
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const purgedCount = async () =>
  Number(
    (await sql<{ n: number }>`select count(*)::int as n from purged_attachments`.execute(t.db.database.db)).rows[0]!.n,
  );
const runPrune = async () => {
  const job = t.plane.services.events.jobs().find((j) => j.name === 'events.prune_purge_records');
  expect(job).toBeDefined();
  await job!.run(clock.now() + 10_000);
};

describe('purge_record_retention_days', () => {
  it('sets the age at which events.prune_purge_records forgets a removed attachment', async () => {
    const mod = new Client(
      t.plane.app,
      (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m'), rate_limit: 1000 })).body.secret,
    );
    const up = await mod.req('POST', '/api/v1/attachments', Buffer.alloc(100, 1), { 'content-type': 'image/jpeg' });
    expect(up.status, up.text).toBe(201);
    const sent = await mod.post('/api/v1/events', {
      events: [
        { detector: 'prc', occurred_at: new Date(clock.now() - 60_000).toISOString(), attachments: [up.body.ref] },
      ],
    });
    expect(sent.status, sent.text).toBe(200);
    const purge = await x.root.post('/api/v1/events/purge', { event_ids: [sent.body.results[0].id] });
    expect(purge.status, purge.text).toBe(202);
    const deadline = Date.now() + 10_000;
    while ((await purgedCount()) < 1) {
      if (Date.now() > deadline) throw new Error('purge did not finish');
      await new Promise((r) => setTimeout(r, 25));
    }
    clock.advance(1 * DAY);
    await runPrune();
    expect(await purgedCount()).toBe(1);
    clock.advance(2 * DAY);
    await runPrune();
    expect(await purgedCount()).toBe(0);
  });
});
