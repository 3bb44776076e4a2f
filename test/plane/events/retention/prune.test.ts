import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { startPlane, ManualClock, type TestPlane } from '../../harness.js';
import { Client } from '../../client.js';
import { SseReader } from '../../sse-client.js';
import { tenants, unique, type Tenants } from '../../inventory.helpers.js';
import { PURGE_RECORD_RETENTION_MS, PurgeRecordsPruner } from '../../../../src/plane/events/retention/prune.js';

// Pruning of event_tombstones and purged_attachments: kept for the retention (410
// archived_data_expired) and, for tombstones, while they are among the newest replay-depth
// frames (a ring filled from the table replays them); then 404 as for any unknown id.

let t: TestPlane;
let x: Tenants;
let dir: string;
let base: string;
let mod: Client;
const DAY = 86_400_000;
const at = (i: number) => new Date(Date.now() - 3600_000 + i * 1000).toISOString();
const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });

async function send(items: Array<Record<string, unknown>>): Promise<string[]> {
  const r = await mod.post('/api/v1/events', { events: items });
  expect(r.status, r.text).toBe(200);
  return r.body.results.map((i: any) => i.id as string);
}
async function purge(ids: string[]): Promise<void> {
  const r = await x.root.post('/api/v1/events/purge', { event_ids: ids });
  expect(r.status, r.text).toBe(202);
  for (let i = 0; i < 400; i++) {
    if ((await x.root.get(`/api/v1/cleanup-jobs/${r.body.id}`)).body.finished_at) return;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error('purge did not finish');
}
const count = async (table: 'event_tombstones' | 'purged_attachments') =>
  Number(
    (await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)}`.execute(t.db.database.db)).rows[0]!.n,
  );
/** A pruner on the plane's database whose clock stands `ahead` ms in the future. */
function pruner(ahead: number, opts: { replayDepth?: number; batch?: number } = {}) {
  const clock = new ManualClock(Date.now() + ahead);
  return {
    clock,
    p: new PurgeRecordsPruner(t.plane.services.events.log, clock, t.plane.services.evidence, opts),
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'argus-prune-'));
  t = await startPlane({ config: { evidence: { backend: 'local', dir } } });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  x = await tenants(t);
  mod = new Client(
    t.plane.app,
    (await x.a.admin.post('/api/v1/module-tokens', { name: unique('m'), rate_limit: 1_000_000 })).body.secret,
  );
});
afterAll(async () => {
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('events.prune_purge_records', () => {
  it('is a named background job of the plane', () => {
    expect(t.plane.services.jobs.list().map((j) => j.name)).toContain('events.prune_purge_records');
  });

  it('keeps records within the retention, then forgets removed attachments; tombstones stay while a ring replays them', async () => {
    const up = await mod.req('POST', '/api/v1/attachments', Buffer.alloc(100, 1), { 'content-type': 'image/jpeg' });
    const ref = up.body.ref as string;
    const ids = await send([
      { detector: 'pr', occurred_at: at(1), attachments: [ref] },
      { detector: 'pr', occurred_at: at(2) },
    ]);
    await purge(ids);
    expect([await count('event_tombstones'), await count('purged_attachments')]).toEqual([2, 1]);

    // within the retention: nothing goes, however small the replay depth
    const young = pruner(PURGE_RECORD_RETENTION_MS - DAY, { replayDepth: 1 });
    expect(await young.p.run(young.clock.now() + 10_000)).toEqual({ tombstones: 0, attachments: 0 });
    expect((await x.a.admin.get(`/api/v1/attachments/${ref}`)).status).toBe(410);

    // past it: the attachment ref goes (404 from now on); the tombstones are still among the
    // newest 512 frames, so they stay and still answer 410
    const old = pruner(PURGE_RECORD_RETENTION_MS + DAY);
    expect(await old.p.run(old.clock.now() + 10_000)).toEqual({ tombstones: 0, attachments: 1 });
    const dl = await x.a.admin.get(`/api/v1/attachments/${ref}`);
    expect([dl.status, dl.body]).toEqual([404, { error: 'not_found' }]);
    expect((await x.a.admin.get(`/api/v1/events/${ids[0]}`)).status).toBe(410);
    expect(await count('event_tombstones')).toBe(2);
  });

  it('prunes old tombstones outside the replay depth in batches, oldest first; idempotent; replay still ends in order', async () => {
    const before = await count('event_tombstones');
    const ids = await send([1, 2, 3, 4].map((i) => ({ detector: 'pr2', occurred_at: at(10 + i) })));
    await purge(ids.slice(0, 3));
    // newer frames push the tombstones out of the newest 3 positions
    const later = await send([5, 6, 7].map((i) => ({ detector: 'pr2', occurred_at: at(10 + i) })));
    const total = before + 3;
    expect(await count('event_tombstones')).toBe(total);
    const { clock, p } = pruner(PURGE_RECORD_RETENTION_MS + DAY, { replayDepth: 3, batch: 2 });
    expect(await p.run(clock.now() + 10_000)).toEqual({ tombstones: total, attachments: 0 });
    expect(await count('event_tombstones')).toBe(0);
    expect(await p.run(clock.now() + 10_000)).toEqual({ tombstones: 0, attachments: 0 });
    const card = await x.a.admin.get(`/api/v1/events/${ids[0]}`);
    expect([card.status, card.body]).toEqual([404, { error: 'not_found' }]);
    expect((await x.a.admin.get(`/api/v1/events/${ids[3]}`)).status).toBe(200);
    // the newest frames replay unchanged from a cursor inside them
    const cursor = (await x.a.admin.get(`/api/v1/events?limit=500`)).body.stream_cursor as string;
    const prefix = cursor.split(':')[0];
    const seqOf = async (id: string) =>
      Number(
        (await sql<{ seq: number }>`select seq from events where id = ${id}`.execute(t.db.database.db)).rows[0]!.seq,
      );
    const s = await SseReader.open(`${base}/api/v1/events/stream`, {
      ...auth(x.a.admin),
      'last-event-id': `${prefix}:${(await seqOf(later[0]!)) - 1}`,
    });
    await s.until((r) => r.events.length >= 3);
    expect(s.events.map((e) => e.data.id)).toEqual(later);
    s.close();
  });

  it('stops at its deadline and resumes on the next run', async () => {
    const ids = await send([1, 2, 3].map((i) => ({ detector: 'pr3', occurred_at: at(30 + i) })));
    await purge(ids);
    await send([{ detector: 'pr3', occurred_at: at(40) }]);
    const { clock, p } = pruner(PURGE_RECORD_RETENTION_MS + DAY, { replayDepth: 1, batch: 1 });
    // a deadline already past: no batch runs
    expect(await p.run(clock.now())).toEqual({ tombstones: 0, attachments: 0 });
    expect(await count('event_tombstones')).toBe(3);
    expect(await p.run(clock.now() + 10_000)).toEqual({ tombstones: 3, attachments: 0 });
  });
});
