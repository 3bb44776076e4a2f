import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { freshDatabase, type TestDb } from '../harness.js';
import { migrate } from '../../../src/plane/db/migrate.js';
import { eventsStore, type EventInsert } from '../../../src/plane/events/log/events.store.js';
import { eventId, timeOfEventId } from '../../../src/plane/events/log/events.ids.js';
import { batchNotice, boundFrame, type EventFrame } from '../../../src/plane/events/log/events.frames.js';
import { EventNotifier, ownPayloadPrefix } from '../../../src/plane/events/log/notifier.js';

let t: TestDb;
const ORG = '11111111-1111-4111-8111-111111111111';
beforeAll(async () => {
  t = await freshDatabase();
  await migrate(t.database);
  const now = Date.now();
  await eventsStore.ensurePartitions(t.database.db, new Date(now - 86_400_000), new Date(now + 86_400_000));
});
afterAll(async () => {
  await t?.drop();
});

const row = (over: Partial<EventInsert> = {}): EventInsert => ({
  id: eventId(Date.now()),
  occurred_at: new Date(),
  camera_id: null,
  node_id: null,
  category: 'camera',
  detector: 'd',
  detector_title: null,
  severity: null,
  confidence: null,
  interval: false,
  ended_at: null,
  template_id: null,
  subject_type: null,
  subject_ref: null,
  ext_id: null,
  list_values: '[]',
  fields: '{}',
  payload: '{}',
  attachments: '[]',
  search_text: 'd',
  search_tokens: [],
  ...over,
});

describe('event ids', () => {
  it('carry the event time to the millisecond; any other shape is not an event id', () => {
    const at = Date.parse('2026-03-04T05:06:07.891Z');
    const id = eventId(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOfEventId(id)!.toISOString()).toBe('2026-03-04T05:06:07.891Z');
    expect(timeOfEventId(id.toUpperCase())!.getTime()).toBe(at);
    // many ids in one millisecond (a batch) all keep that millisecond, and never repeat
    const same = Array.from({ length: 50_000 }, () => eventId(at));
    expect(same.every((i) => timeOfEventId(i)!.getTime() === at)).toBe(true);
    expect(new Set(same).size).toBe(same.length);
    for (const bad of ['', 'x', '00000000-0000-4000-8000-000000000000', `${id}0`, id.replace(/-/g, ''), `../${id}`])
      expect(timeOfEventId(bad)).toBeNull();
  });
});

describe('stream positions', () => {
  it('safeHead waits for writers in flight, so a cursor never skips a row committed after it', async () => {
    const db = t.database.db;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let seqA = 0;
    const writer = db.transaction().execute(async (trx) => {
      await eventsStore.beginWrite(trx);
      seqA = [...(await eventsStore.insertBatch(trx, ORG, null, [row()])).values()][0]!;
      await gate;
    });
    while (!seqA) await new Promise((r) => setTimeout(r, 5));
    let head: number | null = null;
    const reader = eventsStore.safeHead(db).then((h) => {
      head = h.head;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(head).toBeNull(); // still waiting for the writer
    release();
    await writer;
    await reader;
    expect(head).toBeGreaterThanOrEqual(seqA);
  });

  it('draws positions in row order within a batch; returns them by id', async () => {
    const rows = [row(), row(), row()];
    const seqs = await t.database.db.transaction().execute(async (trx) => {
      await eventsStore.beginWrite(trx);
      return eventsStore.insertBatch(trx, ORG, null, rows);
    });
    const s = rows.map((r) => seqs.get(r.id)!);
    expect(s[1]).toBe(s[0]! + 1);
    expect(s[2]).toBe(s[0]! + 2);
  });
});

describe('frames', () => {
  const frame = (over: Partial<EventFrame> = {}): EventFrame => ({
    seq: 1,
    id: eventId(Date.now()),
    occurred_at: new Date().toISOString(),
    ended_at: null,
    org_id: ORG,
    camera_id: null,
    camera_name: null,
    node_id: null,
    node_name: null,
    detector: 'd',
    detector_title: null,
    category: 'camera',
    severity: 1,
    template_id: null,
    interval: false,
    confidence: null,
    subject_type: null,
    subject_ref: null,
    ext_id: null,
    list_values: [],
    starred: false,
    updated: false,
    deleted: false,
    ...over,
  });

  it('a frame over 8 KiB keeps its keys and carries reconcile_required instead of its data', () => {
    const f = frame({ detector_title: { en: 'x'.repeat(9000) }, subject_ref: 'S' });
    const b = boundFrame(f);
    expect(b).toMatchObject({ id: f.id, seq: 1, reconcile_required: true, detector_title: null, subject_ref: null });
    expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThan(8192);
    expect(boundFrame(frame())).not.toHaveProperty('reconcile_required');
  });

  it('one notice per batch: frames inline when they fit the notification bound, else the range only', () => {
    const small = JSON.parse(batchNotice(5, 6, [frame({ seq: 5 }), frame({ seq: 6 })]));
    expect(small.frames).toHaveLength(2);
    const big = batchNotice(
      1,
      100,
      Array.from({ length: 100 }, (_, i) => frame({ seq: i + 1 })),
    );
    expect(JSON.parse(big)).toEqual({ from: 1, to: 100, seqs: [[1, 100]] });
    // runs interleaved with other writers' positions
    const gappy = batchNotice(
      1,
      300,
      Array.from({ length: 100 }, (_, i) => frame({ seq: 1 + i * 3 })),
    );
    expect(JSON.parse(gappy).seqs).toHaveLength(100);
    const huge = batchNotice(
      1,
      3000,
      Array.from({ length: 500 }, (_, i) => frame({ seq: 1000000000 + i * 3 })),
    );
    expect(JSON.parse(huge)).toEqual({ from: 1, to: 3000 });
  });
});

/** The notices of the payloads in `got` once `n` have arrived (or 2 s have passed). */
async function received(got: string[], n: number): Promise<any[]> {
  const all = () => got.flatMap((p) => JSON.parse(p));
  for (let i = 0; i < 100 && all().length < n; i++) await new Promise((r) => setTimeout(r, 20));
  return all();
}

describe('EventNotifier', () => {
  it('sends every notice; those queued while a send is in flight go together, each NOTIFY within the bound', async () => {
    const got: string[] = [];
    const stop = await t.database.listen('argus_events', (p) => got.push(p));
    try {
      const n = new EventNotifier(t.database.db, { warn: () => {} });
      const notices = Array.from({ length: 40 }, (_, i) => JSON.stringify({ from: i, to: i, pad: 'x'.repeat(900) }));
      await Promise.all(notices.map((x) => n.publish(x)));
      const all = await received(got, 40);
      expect(all.map((x: any) => x.from)).toEqual(notices.map((_, i) => i));
      expect(got.length).toBeLessThan(40);
      for (const p of got) expect(Buffer.byteLength(p)).toBeLessThan(8000);
    } finally {
      await stop();
    }
  });

  it('under a steady flow starts a send at most every 5 ms, so many writes share one NOTIFY', async () => {
    const got: string[] = [];
    const stop = await t.database.listen('argus_events', (p) => got.push(p));
    try {
      const n = new EventNotifier(t.database.db, { warn: () => {} });
      const sent: Array<Promise<void>> = [];
      const t0 = performance.now();
      let i = 0;
      // A notice about every millisecond for 80 ms (each sent alone when sends went back to back).
      while (performance.now() - t0 < 80) {
        sent.push(n.publish(JSON.stringify({ from: i, to: i })));
        i++;
        await new Promise((r) => setTimeout(r, 0));
      }
      await Promise.all(sent);
      const elapsed = performance.now() - t0;
      expect((await received(got, i)).map((x: any) => x.from)).toEqual([...Array(i).keys()]);
      expect(i).toBeGreaterThan(20);
      // Small notices: one payload per send.
      expect(got.length).toBeLessThanOrEqual(Math.ceil(elapsed / 5) + 1);
    } finally {
      await stop();
    }
  });

  it("never mixes this process's own notices with others in one payload; its own start with its prefix", async () => {
    const got: string[] = [];
    const stop = await t.database.listen('argus_events', (p) => got.push(p));
    try {
      const taken: EventFrame[] = [];
      const ring = { origin: 'ring-1', take: (f: EventFrame[]) => taken.push(...f) };
      const n = new EventNotifier(t.database.db, { warn: () => {} }, ring);
      const frame = (seq: number) => ({ seq }) as unknown as EventFrame;
      const sent: Array<Promise<void>> = [];
      for (let i = 0; i < 12; i++) {
        const notice = JSON.stringify({ from: i, to: i });
        // Removals' notices go without frames: they round through the database to this ring too.
        sent.push(i % 3 === 2 ? n.publish(notice) : n.publish(notice, [frame(i)]));
      }
      await Promise.all(sent);
      const all = await received(got, 12);
      expect(all.map((x: any) => x.from)).toEqual([...Array(12).keys()]);
      expect(taken.map((f) => f.seq)).toEqual([0, 1, 3, 4, 6, 7, 9, 10]);
      for (const p of got) {
        const origins = new Set((JSON.parse(p) as Array<{ origin?: string }>).map((x) => x.origin ?? null));
        expect(origins.size).toBe(1);
        expect(p.startsWith(ownPayloadPrefix('ring-1'))).toBe(origins.has('ring-1'));
      }
      expect(got.some((p) => p.startsWith(ownPayloadPrefix('ring-1')))).toBe(true);
      expect(got.some((p) => !p.startsWith(ownPayloadPrefix('ring-1')))).toBe(true);
    } finally {
      await stop();
    }
  });
});

describe('day partitions', () => {
  it('creates one partition per UTC day of the range, once; rows outside them land in the default partition', async () => {
    const db = t.database.db;
    const from = new Date('2030-03-30T12:00:00Z'),
      to = new Date('2030-04-02T00:00:00Z');
    expect(await eventsStore.ensurePartitions(db, from, to)).toBe(3);
    expect(await eventsStore.ensurePartitions(db, from, to)).toBe(0);
    const parts = await sql<{
      name: string;
      bound: string;
    }>`select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
      from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events'::regclass and c.relname like 'events_2030%' order by 1`.execute(
      db,
    );
    expect(parts.rows.map((p) => p.name)).toEqual(['events_20300330', 'events_20300331', 'events_20300401']);
    expect(parts.rows[0]!.bound).toContain('2030-03-30 00:00:00+00');
    const inside = row({
      id: eventId(Date.parse('2030-03-31T23:59:59.999Z')),
      occurred_at: new Date('2030-03-31T23:59:59.999Z'),
    });
    const outside = row({
      id: eventId(Date.parse('2031-01-01T00:00:00Z')),
      occurred_at: new Date('2031-01-01T00:00:00Z'),
    });
    await db.transaction().execute(async (trx) => {
      await eventsStore.beginWrite(trx);
      await eventsStore.insertBatch(trx, ORG, null, [inside, outside]);
    });
    const where = await sql<{
      id: string;
      part: string;
    }>`select id, tableoid::regclass::text as part from events where id in (${inside.id}, ${outside.id})`.execute(db);
    expect(Object.fromEntries(where.rows.map((r) => [r.id, r.part]))).toEqual({
      [inside.id]: 'events_20300331',
      [outside.id]: 'events_default',
    });
  });
});
