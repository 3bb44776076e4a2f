import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { eventId, timeOfEventId } from '../../../src/plane/events/log/events.ids.js';
import { eventsStore } from '../../../src/plane/events/log/events.store.js';
import { caughtUp, cam1, clock, head, liveStreamWorld, modA, open, send, seqOf, t, x } from './live-stream.helpers.js';

// GET /api/v1/events/stream from a cursor: replay, then live; resync-required for a cursor it cannot resume.
liveStreamWorld();

describe('GET /api/v1/events/stream', () => {
  it('replays after a feed cursor with delivery=replay, then goes live; the header wins over the parameter', async () => {
    const cursor = await head();
    const { ids } = await send(modA, [
      { detector: 'p1', camera_id: cam1 },
      { detector: 'p2', camera_id: cam1 },
      { detector: 'p3' },
    ]);
    await caughtUp();
    const s = await open(x.a.admin, '?last_event_id=g:0', { 'last-event-id': cursor });
    await s.until((r) => r.events.length >= 3);
    expect(s.events.map((e) => [e.data.id, e.replay])).toEqual(ids.map((id) => [id, true]));
    expect(s.raw).toMatch(/^: delivery=replay\nid: g:\d+\ndata: /m);
    const live = await send(modA, [{ detector: 'p4', camera_id: cam1 }]);
    await s.until((r) => r.events.length >= 4);
    expect([s.events[3]!.data.id, s.events[3]!.replay]).toEqual([live.ids[0], false]);
    s.close();

    await caughtUp();
    const byParam = await open(x.a.operator, `?last_event_id=${cursor}`);
    await byParam.until((r) => r.events.length >= 2);
    await byParam.until((r) => r.events.length >= 3);
    expect(byParam.events.map((e) => [e.data.id, e.replay])).toEqual([
      [ids[0], true],
      [ids[1], true],
      [live.ids[0], true],
    ]);
    byParam.close();
  });

  it('the intake reply cursor resumes just before its batch', async () => {
    const first = await send(modA, [{ detector: 'i1' }, { detector: 'i2' }]);
    const s = await open(x.a.admin, '', { 'last-event-id': first.cursor });
    await s.until((r) => r.events.length >= 2);
    expect(s.events.slice(0, 2).map((e) => e.data.id)).toEqual(first.ids);
    s.close();
  });

  it('the feed cursor is taken before the page: an event committed while the page is assembled is not lost', async () => {
    const db = t.db.database.db;
    // An in-flight writer holds a drawn stream position uncommitted while the feed starts.
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const id = eventId(clock.now());
    let drawn = false;
    const writer = db.transaction().execute(async (trx) => {
      await eventsStore.beginWrite(trx);
      await eventsStore.insertBatch(trx, x.a.orgId, null, [
        {
          id,
          occurred_at: new Date(timeOfEventId(id)!.getTime()),
          camera_id: null,
          node_id: null,
          category: 'camera',
          detector: 'slow',
          detector_title: null,
          severity: 2,
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
          search_text: 'slow',
          search_tokens: [],
        },
      ]);
      drawn = true;
      await gate;
    });
    while (!drawn) await new Promise((r) => setTimeout(r, 5));
    let answered = false;
    const page = x.a.admin.get('/api/v1/events?detector=nothing-matches').then((r) => {
      answered = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(answered).toBe(false); // the cursor waits for the writer in flight
    release();
    await writer;
    const body = (await page).body;
    expect(body.rows).toEqual([]);
    const s = await open(x.a.admin, '', { 'last-event-id': body.stream_cursor });
    const later = await send(modA, [{ detector: 'after' }]);
    await s.until((r) => r.events.some((e) => e.data.id === later.ids[0]));
    // The committed row lies at or below the cursor: a page query after the cursor sees it.
    const row = await sql<{ seq: number }>`select seq from events where id = ${id}`.execute(db);
    expect(Number(row.rows[0]!.seq)).toBeLessThanOrEqual(seqOf(body.stream_cursor));
    s.close();
  });

  it.each([
    ['no prefix', '12'],
    ['a damaged number', 'g:x1'],
    ['a bad purge day', 'd2026:1'],
    ['the future', 'g:999999999'],
    ['a purge day that does not apply', 'd20260101:1'],
  ])('ends with resync-required for a cursor with %s', async (_n, cursor) => {
    const s = await open(x.a.admin, '', { 'last-event-id': cursor });
    await s.until((r) => r.ended);
    expect(s.events).toEqual([]);
    expect(s.raw).toBe(': resync-required\n\n');
  });

  it('ends with resync-required when the cursor was evicted from the 512-frame ring', async () => {
    const old = await head();
    for (let i = 0; i < 2; i++)
      await send(
        modA,
        Array.from({ length: 300 }, () => ({ detector: 'evict' })),
      );
    await caughtUp();
    const s = await open(x.a.admin, '', { 'last-event-id': old });
    await s.until((r) => r.ended);
    expect(s.raw.endsWith(': resync-required\n\n')).toBe(true);
    expect(s.events).toEqual([]);
    // 512 back is still inside
    const inside = `g:${seqOf(await head()) - 512}`;
    const last = seqOf(await head());
    const ok = await open(x.a.admin, '', { 'last-event-id': inside });
    // positions may be empty (a row moved on by a change), so up to 512 frames
    await ok.until((r) => r.events.some((e) => e.data.seq === last));
    expect(ok.ended).toBe(false);
    expect(ok.events.every((e) => e.replay)).toBe(true);
    ok.close();
  });
});
