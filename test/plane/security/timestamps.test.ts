import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { unique } from '../inventory.helpers.js';

// Issue 25, finding 7: one timestamp rule for every route. Times past PostgreSQL's text range
// answered 500 (analytics, purge preview) and impossible dates were rolled over (2026-02-30 read
// as March 2). Each route answers the code it already had for a bad time or range.
const NOW = Date.UTC(2026, 2, 5, 12, 0, 0);
let t: TestPlane;
let root: Client;
let mod: Client;
beforeAll(async () => {
  t = await startPlane({ clock: new ManualClock(NOW) });
  root = await login(t.plane.app);
  const r = await root.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: 100_000 });
  expect(r.status, r.text).toBe(201);
  mod = new Client(t.plane.app, r.body.secret);
});
afterAll(async () => {
  await t?.close();
});

const BAD = [
  '-271821-04-20T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '0000-01-01T00:00:00Z',
  '0000-01-01',
  '10000-01-01T00:00:00Z',
  '9999-12-31T23:59:59-01:00',
  '0001-01-01T00:00:00+01:00',
  '2026-02-30T00:00:00Z',
  '2026-02-30',
  '2026-04-31T10:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-01-01T00:00:00Z[Europe/Paris]',
];
const GOOD = ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59+01:00', '2024-02-29T00:00:00Z'];
const UUID = '00000000-0000-4000-8000-000000000001';
const EVENT_ID = '019cbe2e-8a00-7000-8000-000000000001';
const e = encodeURIComponent;

/** Each route that takes a timestamp: the request with `v` in one of its time fields, and the code it answers for a bad one. */
const ROUTES: Array<[string, (v: string) => Promise<{ status: number; body: any; text: string }>, string | null]> = [
  [
    'analytics from',
    (v) =>
      root.post('/api/v1/event-analytics/query', { from: v, to: '9999-12-31T23:59:59.999Z', measure: 'count_events' }),
    'analytics_bad_range',
  ],
  [
    'analytics to',
    (v) => root.post('/api/v1/event-analytics/query', { from: '0001-01-01T00:00:00Z', to: v, measure: 'count_events' }),
    'analytics_bad_range',
  ],
  ['purge preview from', (v) => root.post('/api/v1/events/purge/preview', { from: v }), 'bad_time_range'],
  ['purge preview to', (v) => root.post('/api/v1/events/purge/preview', { to: v }), 'bad_time_range'],
  ['purge preview as_of', (v) => root.post('/api/v1/events/purge/preview', { as_of: v }), 'bad_as_of'],
  ['feed from', (v) => root.get(`/api/v1/events?from=${e(v)}`), 'bad_event_range'],
  ['feed to', (v) => root.get(`/api/v1/events?to=${e(v)}`), 'bad_event_range'],
  ['feed after_ts', (v) => root.get(`/api/v1/events?after_ts=${e(v)}&after_id=${UUID}`), 'bad_event_cursor'],
  [
    'navigate anchor',
    (v) => root.get(`/api/v1/events/navigate?anchor=${e(v)}&anchor_id=${UUID}&direction=next`),
    'bad_anchor',
  ],
  [
    'adjacent anchor',
    (v) => root.get(`/api/v1/events/adjacent?camera=${UUID}&anchor=${e(v)}&direction=next`),
    'bad_anchor',
  ],
  [
    'reconcile candidate',
    (v) => root.post('/api/v1/events/reconcile', { candidates: [{ id: UUID, occurred_at: v }] }),
    'bad_request',
  ],
  ['close ended_at', (v) => root.patch(`/api/v1/events/${EVENT_ID}`, { ended_at: v }), 'bad_ended_at'],
  // Document 1: the framework's own text for these (no code of the catalogue).
  ['audit occurred_from', (v) => root.get(`/api/v1/audit?occurred_from=${e(v)}`), null],
  ['audit before_ts', (v) => root.get(`/api/v1/audit?before_ts=${e(v)}&before_id=${UUID}`), null],
  ['audit record occurred_at', (v) => root.get(`/api/v1/audit/${UUID}?occurred_at=${e(v)}`), null],
];

describe("timestamps outside 0001-9999 or of impossible dates answer 400 with the route's code", () => {
  it.each(ROUTES)('%s', async (_name, send, code) => {
    const wrong: string[] = [];
    for (const v of BAD) {
      const r = await send(v);
      const ok = r.status === 400 && (code === null ? typeof r.body?.error === 'string' : r.body?.error === code);
      if (!ok) wrong.push(`${v}: ${r.status} ${r.text.slice(0, 80)}`);
    }
    expect(wrong).toEqual([]);
  });

  it.each(ROUTES)('%s: the edges of the range are ordinary times', async (name, send, code) => {
    for (const v of GOOD) {
      const r = await send(v);
      expect(r.status, `${v}: ${r.text}`).toBeLessThan(500);
      // The last instant as `from`, or the first as `to`, is an empty range (from = to), refused as such.
      const empty =
        (name === 'analytics from' && v.endsWith('.999Z')) || (name === 'analytics to' && v.startsWith('0001'));
      if (code && !empty) expect(r.body?.error, `${v}: ${r.text}`).not.toBe(code);
    }
  });

  it("a query batch reports the bad range in the query's own result", async () => {
    const r = await root.post('/api/v1/event-analytics/query-batch', {
      queries: BAD.map((v, i) => ({
        key: `q${i}`,
        query: { from: v, to: '2026-03-01T00:00:00Z', measure: 'count_events' },
      })),
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.map((x: any) => x.error)).toEqual(BAD.map(() => 'analytics_bad_range'));
  });

  it('analytics over the first and the last days of the range, in far-off time zones, by hour and day', async () => {
    for (const timezone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kolkata']) {
      for (const bucket of ['hour', 'day']) {
        for (const [from, to] of [
          ['0001-01-01T00:00:00Z', '0001-01-03T00:00:00Z'],
          ['9999-12-29T00:00:00Z', '9999-12-31T23:59:59.999Z'],
        ]) {
          const r = await root.post('/api/v1/event-analytics/query', {
            from,
            to,
            timezone,
            bucket,
            measure: 'count_events',
          });
          expect(r.status, `${timezone} ${bucket} ${from}: ${r.text}`).toBe(200);
        }
      }
    }
  });

  it('intake: an impossible occurred_at or ended_at fails its item (it was rolled over to another day)', async () => {
    const ev = (over: Record<string, unknown>) => ({
      detector: 'time.check',
      occurred_at: '2026-03-04T12:00:00Z',
      ...over,
    });
    const r = await mod.post('/api/v1/events', {
      events: [
        ev({ occurred_at: '2026-02-30T12:00:00Z' }),
        ev({ occurred_at: '2026-02-29T12:00:00Z' }),
        ev({ occurred_at: '2026-03-04T24:00:00Z' }),
        ev({ interval: true, ended_at: '2026-02-31T12:00:00Z' }),
        ev({}),
      ],
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.results.slice(0, 4)).toEqual([
      { index: 0, error: 'bad_occurred_at' },
      { index: 1, error: 'bad_occurred_at' },
      { index: 2, error: 'bad_occurred_at' },
      { index: 3, error: 'bad_ended_at' },
    ]);
    expect(r.body.results[4].id).toBeDefined();
  });

  it('the database stayed up', () => {
    expect(t.plane.services.health.isUp).toBe(true);
  });
});
