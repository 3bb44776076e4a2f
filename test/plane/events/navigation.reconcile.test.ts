import { describe, expect, it } from 'vitest';
import type { Client } from '../client.js';
import { eventId } from '../../../src/plane/events/log/events.ids.js';
import { A, at, BASE, cam1, enc, hi, ids, lo, name, navigationWorld, t, x } from './navigation.helpers.js';

// POST /api/v1/events/reconcile, and navigate and reconcile with q (the feed search).
navigationWorld();

describe('POST /api/v1/events/reconcile', () => {
  const key = (k: string) => ({ id: ids[k]!, occurred_at: at((A.find(([n]) => n === k)?.[1].t as number) ?? 2) });
  const all = () => ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b0'].map(key);
  const rec = async (c: Client, candidates: unknown[], q = '') => {
    const r = await c.post(`/api/v1/events/reconcile${q}`, { candidates });
    expect(r.status, r.text).toBe(200);
    expect(r.body.next_ts).toBeNull();
    expect(r.body.next_id).toBeNull();
    expect(Object.keys(r.body).sort()).toEqual(['next_id', 'next_ts', 'rows']);
    return r.body.rows.map((row: any) => name(row.id));
  };

  it('exactly the candidates that match the filter, as full rows, newest first; missing, foreign and ungranted alike absent', async () => {
    const unknown = { id: eventId(BASE + 2000), occurred_at: at(2) };
    // a candidate whose time is not its id's names no event
    const skewed = { id: ids.a0, occurred_at: at(1) };
    expect(
      await rec(x.a.admin, [...all(), unknown, skewed, key('a0'), { ...key('a5'), id: ids.a5!.toUpperCase() }]),
    ).toEqual(['a6', 'a5', 'a4', name(hi), name(lo), 'a0']);
    expect(await rec(x.a.operator, all())).toEqual(['a5', name(hi), name(lo), 'a0']);
    expect(await rec(x.b.admin, all())).toEqual(['b0']);
    expect(await rec(x.b.operator, all())).toEqual([]);
    expect(await rec(x.root, all())).toEqual([
      'a6',
      'a5',
      'a4',
      ...[name(hi), name(lo), 'b0'].sort((p, q) => (ids[p!]! < ids[q!]! ? 1 : -1)),
      'a0',
    ]);
    const r = await x.a.admin.post('/api/v1/events/reconcile', { candidates: [key('a5')] });
    expect(r.body.rows[0]).toMatchObject({
      id: ids.a5,
      occurred_at: at(4),
      camera_id: cam1,
      severity: 'error',
      detector: 'face',
      org_id: x.a.orgId,
    });
    expect((await x.a.admin.post('/api/v1/events/reconcile', {})).body).toEqual({
      rows: [],
      next_ts: null,
      next_id: null,
    });
    expect((await x.anon.post('/api/v1/events/reconcile', { candidates: [] })).status).toBe(401);
  });

  it('the feed filters apply; limit is ignored; org narrows for a superadmin', async () => {
    expect(await rec(x.a.admin, all(), `?camera=${cam1}`)).toEqual(['a5', name(hi), name(lo), 'a0']);
    expect(await rec(x.a.admin, all(), '?severity=debug&severity_max=0')).toEqual(['a1']);
    expect(await rec(x.a.admin, all(), '?severity=warning')).toEqual(['a5', 'a4']);
    expect(await rec(x.a.admin, all(), '?detector=lpr.*&severity=0')).toEqual(['a2', 'a1']);
    expect(await rec(x.a.admin, all(), `?from=${enc(at(2))}&to=${enc(at(4))}`)).toEqual(['a4', name(hi), name(lo)]);
    expect(await rec(x.a.admin, all(), '?limit=1')).toHaveLength(6);
    expect(await rec(x.root, all(), `?org=${x.b.orgId}`)).toEqual(['b0']);
    const foreign = await x.a.admin.post(`/api/v1/events/reconcile?org=${x.b.orgId}`, { candidates: [] });
    expect([foreign.status, foreign.body]).toEqual([403, { error: 'cross_org' }]);
  });

  it('limits: 512 candidates, duplicates collapse, a spread of at most 31 days after dropping those outside from/to', async () => {
    const many = Array.from({ length: 512 }, (_, i) => ({
      id: eventId(BASE - i * 1000),
      occurred_at: new Date(BASE - i * 1000).toISOString(),
    }));
    expect(await rec(x.a.admin, [...many.slice(0, 511), key('a0')])).toEqual(['a0']);
    const dup = Array.from({ length: 512 }, () => key('a0'));
    expect(await rec(x.a.admin, dup)).toEqual(['a0']);
    const too = await x.a.admin.post('/api/v1/events/reconcile', { candidates: [...many, key('a0')] });
    expect([too.status, too.body]).toEqual([400, { error: 'event_reconcile_too_many_candidates' }]);
    const DAY = 86_400_000;
    const old = (days: number) => ({
      id: eventId(BASE - days * DAY),
      occurred_at: new Date(BASE - days * DAY).toISOString(),
    });
    expect(await rec(x.a.admin, [old(31), key('a0')])).toEqual(['a0']);
    const wide = await x.a.admin.post('/api/v1/events/reconcile', { candidates: [old(32), key('a0')] });
    expect([wide.status, wide.body]).toEqual([400, { error: 'event_reconcile_span_too_wide' }]);
    expect(await rec(x.a.admin, [old(40), key('a0')], `?from=${enc(new Date(BASE - DAY).toISOString())}`)).toEqual([
      'a0',
    ]);
    expect(await rec(x.a.admin, [old(40), old(1)], `?to=${enc(new Date(BASE - 2 * DAY).toISOString())}`)).toEqual([]);
  });

  it('errors: cursor not allowed, feed filter errors, bad candidates, 413 over 96 KiB', async () => {
    const post = (q: string, body: unknown) => x.a.admin.post(`/api/v1/events/reconcile${q}`, body);
    const cases: Array<[string, unknown, string]> = [
      [`?after_ts=${enc(at(1))}&after_id=${ids.a1}`, { candidates: [] }, 'event_reconcile_cursor_not_allowed'],
      [`?after_ts=${enc(at(1))}`, { candidates: [] }, 'event_reconcile_cursor_not_allowed'],
      [`?after_id=${ids.a1}`, { candidates: [] }, 'event_reconcile_cursor_not_allowed'],
      [`?from=${enc(at(3))}&to=${enc(at(2))}`, { candidates: [] }, 'bad_event_range'],
      ['?severity=fatal', { candidates: [] }, 'bad_severity'],
      ['?severity=3&severity_max=1', { candidates: [] }, 'bad_severity_range'],
      ['?category=x', { candidates: [] }, 'bad_category'],
      ['?colour=red', { candidates: [] }, 'unknown_field'],
      ['', { candidates: [{ id: 'x', occurred_at: at(0) }] }, 'bad_request'],
      ['', { candidates: [{ id: ids.a0, occurred_at: 'today' }] }, 'bad_request'],
      ['', { candidates: [{ id: ids.a0 }] }, 'bad_request'],
      ['', { candidates: [{ ...key('a0'), extra: 1 }] }, 'unknown_field'],
      ['', { candidates: 'a0' }, 'bad_request'],
      ['', { candidates: [], more: 1 }, 'unknown_field'],
    ];
    for (const [q, body, code] of cases) {
      const r = await post(q, body);
      expect([r.status, r.body], `${q} ${JSON.stringify(body)}`).toEqual([400, { error: code }]);
    }
    const big = JSON.stringify({ candidates: [key('a0')] }).replace('{', `{${' '.repeat(96 * 1024)}`);
    const r = await x.a.admin.req('POST', '/api/v1/events/reconcile', big, { 'content-type': 'application/json' });
    expect([r.status, r.body]).toEqual([413, { error: 'payload_too_large' }]);
    const fits = JSON.stringify({ candidates: [key('a0')] }).replace('{', `{${' '.repeat(90 * 1024)}`);
    expect(
      (await x.a.admin.req('POST', '/api/v1/events/reconcile', fits, { 'content-type': 'application/json' })).status,
    ).toBe(200);
  });
});

describe('navigate and reconcile with q (the feed search)', () => {
  const navQ = async (c: Client, anchor: string, direction: string, q: string) => {
    const t0 = A.find(([k]) => k === anchor)![1].t as number;
    return c.get(
      `/api/v1/events/navigate?anchor=${enc(at(t0))}&anchor_id=${ids[anchor]}&direction=${direction}&q=${enc(q)}`,
    );
  };
  const all = () =>
    ['a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'b0'].map((k) => ({
      id: ids[k]!,
      occurred_at: at((A.find(([n]) => n === k)?.[1].t as number) ?? 2),
    }));

  it('only rows the search finds, within rights', async () => {
    // motion: a0, a3, a4 (cam2) in org A
    expect((await navQ(x.a.admin, 'a5', 'next', 'motion')).body).toEqual({ event: { id: ids.a4, occurred_at: at(3) } });
    expect((await navQ(x.a.admin, 'a4', 'next', 'motion')).body.event.id).toBe(ids.a3);
    expect((await navQ(x.a.admin, 'a3', 'next', 'motion')).body.event.id).toBe(ids.a0);
    expect((await navQ(x.a.admin, 'a0', 'previous', 'motion')).body.event.id).toBe(ids.a3);
    expect((await navQ(x.a.operator, 'a5', 'next', 'motion')).body.event.id).toBe(ids.a3);
    expect((await navQ(x.a.admin, 'a0', 'next', 'motion')).body).toEqual({ event: null });
    const r = await x.a.admin.post(`/api/v1/events/reconcile?q=motion`, { candidates: all() });
    expect(r.status, r.text).toBe(200);
    expect(r.body.rows.map((row: any) => row.id)).toEqual([ids.a4, ids.a3, ids.a0]);
    const op = await x.a.operator.post(`/api/v1/events/reconcile?q=motion`, { candidates: all() });
    expect(op.body.rows.map((row: any) => row.id)).toEqual([ids.a3, ids.a0]);
  });

  it('event_search_too_short; 429 event_search_busy when the 4 search slots are taken', async () => {
    for (const r of [
      await navQ(x.a.admin, 'a5', 'next', 'x'),
      await x.a.admin.post(`/api/v1/events/reconcile?q=x`, { candidates: [] }),
    ]) {
      expect([r.status, r.body]).toEqual([400, { error: 'event_search_too_short' }]);
    }
    const search = t.plane.services.events.events.search;
    const held = [search.take(), search.take(), search.take(), search.take()];
    try {
      for (const r of [
        await navQ(x.a.admin, 'a5', 'next', 'motion'),
        await x.a.admin.post(`/api/v1/events/reconcile?q=motion`, { candidates: all() }),
      ]) {
        expect([r.status, r.body]).toEqual([429, { error: 'event_search_busy', retry_after: 1 }]);
        expect(r.headers['retry-after']).toBe('1');
      }
      // without q no slot is needed
      expect((await x.a.admin.post('/api/v1/events/reconcile', { candidates: all() })).status).toBe(200);
      const t0 = A.find(([k]) => k === 'a5')![1].t as number;
      const plain = await x.a.admin.get(
        `/api/v1/events/navigate?anchor=${enc(at(t0))}&anchor_id=${ids.a5}&direction=next`,
      );
      expect(plain.status, plain.text).toBe(200);
    } finally {
      for (const release of held) release();
    }
    expect((await navQ(x.a.admin, 'a5', 'next', 'motion')).status).toBe(200);
  });
});
