import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { unique } from '../inventory.helpers.js';
import { timeOfEventId } from '../../../src/plane/events/log/events.ids.js';
import {
  camA,
  camB,
  db,
  ev,
  intakeWorld,
  iso,
  modA,
  modA2,
  nodeId,
  rowOf,
  t,
  tokA,
  token,
  x,
} from './intake.helpers.js';

// POST /api/v1/events; POST /api/v1/attachments: intake.attachments.test.ts.
intakeWorld();

describe('POST /api/v1/events', () => {
  it('stores every field, answers per item with UUIDv7 ids carrying occurred_at, and a stream cursor', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const occurred = iso(-60_000);
    const r = await modA.post('/api/v1/events', {
      events: [
        ev({
          occurred_at: occurred,
          camera_id: camA.toUpperCase(),
          severity: 'warning',
          confidence: 0.87,
          subject_type: 'plate',
          subject_ref: 'AB123',
          ext_id: unique('e'),
          detector_title: { en: 'Plate', de: 'Kennzeichen' },
          payload: { plate: 'AB123', box: [1, 2, 3, 4] },
        }),
        ev({ interval: true, severity: 4 }),
        ev({ interval: true, occurred_at: occurred, ended_at: iso(), detector_title: 'Loitering' }),
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.map((i: any) => i.index)).toEqual([0, 1, 2]);
    expect(r.body.results.every((i: any) => /^[0-9a-f-]{36}$/.test(i.id))).toBe(true);
    const [id0, id1, id2] = r.body.results.map((i: any) => i.id);
    expect(timeOfEventId(id0)!.toISOString()).toBe(occurred);
    const e0 = await rowOf(id0);
    expect(e0).toMatchObject({
      org_id: x.a.orgId,
      camera_id: camA,
      node_id: nodeId,
      token_id: tokA,
      category: 'camera',
      detector: 'lpr.plate',
      severity: 2,
      confidence: 0.87,
      interval: false,
      ended_at: null,
      template_id: null,
      subject_type: 'plate',
      subject_ref: 'AB123',
      detector_title: { en: 'Plate', de: 'Kennzeichen' },
      payload: { plate: 'AB123', box: [1, 2, 3, 4] },
      attachments: [],
      starred: false,
      list_values: [],
    });
    expect(new Date(e0.occurred_at).toISOString()).toBe(occurred);
    // the cursor is the position just before the batch: the stream delivers the batch and what follows
    expect(r.body.stream_cursor).toBe(`g:${Number(e0.seq) - 1}`);
    expect([Number((await rowOf(id1)).seq), Number((await rowOf(id2)).seq)]).toEqual([
      Number(e0.seq) + 1,
      Number(e0.seq) + 2,
    ]);
    expect(await rowOf(id1)).toMatchObject({
      interval: true,
      ended_at: null,
      severity: 4,
      camera_id: null,
      node_id: null,
    });
    expect(new Date((await rowOf(id2)).ended_at!).getTime()).toBeGreaterThan(Date.parse(occurred));
    // free text is searchable through the index column
    const hit = await sql<{
      id: string;
    }>`select id from events where search @@ to_tsquery('simple', 'ab123') and org_id = ${x.a.orgId}`.execute(db());
    expect(hit.rows.map((h) => h.id)).toContain(id0);
    void at;
  });

  it('a bad item fails only itself, with its code', async () => {
    const cases: Array<[unknown, string]> = [
      ['text', 'bad_item'],
      [[1], 'bad_item'],
      [null, 'bad_item'],
      [ev({ colour: 'red' }), 'unknown_field'],
      [ev({ detector: '' }), 'bad_detector'],
      [ev({ detector: 'd'.repeat(257) }), 'bad_detector'],
      [{ occurred_at: iso() }, 'bad_detector'],
      [ev({ occurred_at: 'yesterday' }), 'bad_occurred_at'],
      [ev({ occurred_at: '2026-01-01T00:00:00' }), 'bad_occurred_at'],
      [{ detector: 'x' }, 'bad_occurred_at'],
      [ev({ occurred_at: iso(-31 * 86_400_000) }), 'occurred_at_out_of_range'],
      [ev({ occurred_at: iso(3600_000) }), 'occurred_at_out_of_range'],
      [ev({ camera_id: 'cam-1' }), 'bad_camera_id'],
      [ev({ camera_id: camB }), 'unknown_camera'],
      [ev({ camera_id: '00000000-0000-4000-8000-000000000000' }), 'unknown_camera'],
      [ev({ severity: 'fatal' }), 'bad_severity'],
      [ev({ severity: 5 }), 'bad_severity'],
      [ev({ severity: 1.5 }), 'bad_severity'],
      [ev({ confidence: 'high' }), 'bad_confidence'],
      [ev({ confidence: -1 }), 'bad_confidence'],
      [ev({ interval: 'yes' }), 'bad_interval'],
      [ev({ ended_at: iso() }), 'bad_ended_at'],
      [ev({ interval: true, occurred_at: iso(-1000), ended_at: iso(-5000) }), 'bad_ended_at'],
      [ev({ interval: true, ended_at: 'soon' }), 'bad_ended_at'],
      [ev({ subject_ref: 'r'.repeat(257) }), 'bad_subject'],
      [ev({ subject_type: 7 }), 'bad_subject'],
      [ev({ ext_id: 'e'.repeat(129) }), 'bad_ext_id'],
      [ev({ ext_id: '' }), 'bad_ext_id'],
      [ev({ detector_title: 42 }), 'bad_detector_title'],
      [ev({ detector_title: { en: 1 } }), 'bad_detector_title'],
      [ev({ payload: [1] }), 'bad_payload'],
      [ev({ payload: 'x' }), 'bad_payload'],
      [ev({ payload: { big: 'x'.repeat(64 * 1024) } }), 'payload_too_large'],
      [ev({ attachments: 'ref' }), 'bad_attachments'],
      [ev({ attachments: ['nope'] }), 'bad_attachments'],
      [ev({ attachments: ['00000000-0000-7000-8000-000000000000'] }), 'unknown_attachment'],
    ];
    const r = await modA.post('/api/v1/events', { events: [ev(), ...cases.map((c) => c[0]), ev({ camera_id: camA })] });
    expect(r.status, r.text).toBe(200);
    const res = r.body.results;
    expect(res).toHaveLength(cases.length + 2);
    expect(res[0].id).toBeDefined();
    cases.forEach(([, code], i) =>
      expect(res[i + 1], JSON.stringify(cases[i]![0]).slice(0, 80)).toEqual({ index: i + 1, error: code }),
    );
    expect(res[cases.length + 1].id).toBeDefined();
    const n = await db()
      .selectFrom('events')
      .select(db().fn.countAll<number>().as('n'))
      .where('id', 'in', [res[0].id, res[cases.length + 1].id])
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(2);
  });

  it('batch-level errors: 1..500 items, unknown fields, 8 MiB, JSON', async () => {
    for (const body of [{ events: [] }, {}, { events: 'x' }, { events: Array.from({ length: 501 }, () => ev()) }]) {
      expect((await modA.post('/api/v1/events', body)).body).toEqual({ error: 'bad_events' });
    }
    expect((await modA.post('/api/v1/events', { events: [ev()], extra: 1 })).body).toEqual({ error: 'unknown_field' });
    const bad = await modA.req('POST', '/api/v1/events', '{"events": [', { 'content-type': 'application/json' });
    expect([bad.status, bad.body]).toEqual([400, { error: 'bad_json' }]);
    const huge = JSON.stringify({ events: [ev({ payload: { p: 'x'.repeat(8 * 1024 * 1024) } })] });
    const big = await modA.req('POST', '/api/v1/events', huge, { 'content-type': 'application/json' });
    expect([big.status, big.body]).toEqual([413, { error: 'payload_too_large' }]);
    // 500 items are one batch
    const full = await modA.post('/api/v1/events', { events: Array.from({ length: 500 }, () => ev()) });
    expect(full.status).toBe(200);
    expect(full.body.results.filter((i: any) => i.id)).toHaveLength(500);
  });

  it('the same ext_id from the same token returns the first id and changes nothing; another token makes its own', async () => {
    const ext = unique('ext');
    const first = await modA.post('/api/v1/events', { events: [ev({ ext_id: ext, payload: { v: 1 } })] });
    const id = first.body.results[0].id;
    const again = await modA.post('/api/v1/events', {
      events: [ev({ ext_id: ext, payload: { v: 2 }, detector: 'other' }), ev({ ext_id: ext })],
    });
    expect(again.body.results).toEqual([
      { index: 0, id },
      { index: 1, id },
    ]);
    expect(await rowOf(id)).toMatchObject({ payload: { v: 1 }, detector: 'lpr.plate', ext_id: ext });
    // nothing written: a safe head, at or past the first event
    expect(Number(again.body.stream_cursor.slice(2))).toBeGreaterThanOrEqual(Number((await rowOf(id)).seq));
    const sameBatch = await modA.post('/api/v1/events', {
      events: [ev({ ext_id: `${ext}-b` }), ev({ ext_id: `${ext}-b` })],
    });
    expect(sameBatch.body.results[0].id).toBe(sameBatch.body.results[1].id);
    const other = await modA2.post('/api/v1/events', { events: [ev({ ext_id: ext })] });
    expect(other.body.results[0].id).not.toBe(id);
    const rows = await db().selectFrom('events').select('id').where('ext_id', '=', ext).execute();
    expect(rows).toHaveLength(2);
  });

  it('racing retries of one batch create each event once', async () => {
    const batch = { events: Array.from({ length: 50 }, (_, i) => ev({ ext_id: `race-${process.pid}-${i}` })) };
    const replies = await Promise.all([
      modA.post('/api/v1/events', batch),
      modA.post('/api/v1/events', batch),
      modA.post('/api/v1/events', batch),
    ]);
    for (const r of replies) expect(r.status, r.text).toBe(200);
    expect(replies[1]!.body.results).toEqual(replies[0]!.body.results);
    expect(replies[2]!.body.results).toEqual(replies[0]!.body.results);
    const n = await db()
      .selectFrom('events')
      .select(db().fn.countAll<number>().as('n'))
      .where('ext_id', 'like', `race-${process.pid}-%`)
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(50);
  });

  it('per-token rate: null follows module_rate_limit_default (3/s here); 429 rate_limited with retry_after and Retry-After', async () => {
    const tok = await token(x.a.admin, null);
    expect((await tok.client.post('/api/v1/events', { events: [ev(), ev(), ev()] })).status).toBe(200);
    const r = await tok.client.post('/api/v1/events', { events: [ev()] });
    expect([r.status, r.body]).toEqual([429, { error: 'rate_limited', retry_after: 1 }]);
    expect(r.headers['retry-after']).toBe('1');
    // its own limit applies at once; a batch above one second's rate still passes when the bucket is full
    await x.a.admin.patch(`/api/v1/module-tokens/${tok.id}`, { rate_limit: 2 });
    expect((await tok.client.post('/api/v1/events', { events: [ev(), ev(), ev(), ev()] })).status).toBe(200);
    const debt = await tok.client.post('/api/v1/events', { events: [ev()] });
    // The debt's exact wait (2 s when asked at once) is the bucket's rule on an injected clock
    // (rate-limit.test.ts); over HTTP on the system clock a loaded machine may have refilled a little.
    expect(debt.status).toBe(429);
    expect([1, 2]).toContain(debt.body.retry_after);
    // other tokens are not affected
    expect((await modA2.post('/api/v1/events', { events: [ev()] })).status).toBe(200);
  });

  it('publishes each committed batch once after commit, at most one NOTIFY per batch, frames inline when they fit', async () => {
    const got: string[] = [];
    const stop = await t.db.database.listen('argus_events', (p) => got.push(p));
    try {
      const small = await modA.post('/api/v1/events', {
        events: [ev({ camera_id: camA, severity: 'info', subject_ref: 'S1' }), ev()],
      });
      const big = await modA.post('/api/v1/events', {
        events: Array.from({ length: 100 }, () => ev({ payload: { k: 'v' } })),
      });
      await modA.post('/api/v1/events', { events: [{ detector: '' }] }); // nothing written, nothing published
      // Notices of earlier tests' batches may still arrive: pick ours by their first position.
      const smallFrom = Number(small.body.stream_cursor.slice(2)) + 1;
      const bigFrom = Number(big.body.stream_cursor.slice(2)) + 1;
      const notices = () => got.flatMap((p) => JSON.parse(p) as any[]);
      const ours = () => notices().filter((n) => n.from === smallFrom || n.from === bigFrom);
      for (let i = 0; i < 250 && ours().length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100));
      expect(got.length).toBeLessThanOrEqual(notices().length);
      for (const p of got) expect(Buffer.byteLength(p)).toBeLessThan(8000);
      expect(ours()).toHaveLength(2);
      const n1 = ours().find((n) => n.from === smallFrom),
        n2 = ours().find((n) => n.from === bigFrom);
      const head1 = smallFrom + 1;
      expect([n1.from, n1.to]).toEqual([head1 - 1, head1]);
      expect(n1.frames).toHaveLength(2);
      const cam = (await x.a.admin.get(`/api/v1/cameras/${camA}`)).body;
      expect(n1.frames[0]).toEqual({
        seq: head1 - 1,
        id: small.body.results[0].id,
        occurred_at: expect.any(String),
        ended_at: null,
        org_id: x.a.orgId,
        camera_id: camA,
        camera_name: cam.name,
        node_id: nodeId,
        node_name: expect.any(String),
        detector: 'lpr.plate',
        detector_title: null,
        category: 'camera',
        severity: 1,
        template_id: null,
        interval: false,
        confidence: null,
        subject_type: null,
        subject_ref: 'S1',
        ext_id: null,
        list_values: [],
        starred: false,
        updated: false,
        deleted: false,
      });
      expect(n2.to - n2.from + 1).toBe(100);
      expect(n2.frames).toBeUndefined();
    } finally {
      await stop();
    }
  });

  it('rows land in their day partition; the events.partitions job runs', async () => {
    const r = await modA.post('/api/v1/events', { events: [ev({ occurred_at: iso(-2 * 86_400_000) }), ev()] });
    for (const { id } of r.body.results) {
      const p = await sql<{
        part: string;
        day: string;
      }>`select tableoid::regclass::text as part, to_char(occurred_at at time zone 'UTC', 'YYYYMMDD') as day from events where id = ${id}`.execute(
        db(),
      );
      expect(p.rows[0]!.part).toBe(`events_${p.rows[0]!.day}`);
    }
    expect(t.plane.services.jobs.list().map((j) => j.name)).toContain('events.partitions');
    expect(await t.plane.services.events.ensurePartitions()).toBe(0);
  });
});
