import { describe, expect, it } from 'vitest';
import { applyFrame, mergePage, upsert, type FeedRow, type StreamFrame } from '../../web/src/lib/live-feed.js';

const row = (id: string, at: string, o: Partial<FeedRow> = {}): FeedRow => ({
  id,
  occurred_at: at,
  camera_id: 'c1',
  detector: 'door',
  category: 'camera',
  severity: 2,
  org_id: 'o1',
  starred: false,
  ended_at: null,
  ...o,
});
const ids = (rows: FeedRow[]) => rows.map((r) => r.id);

describe('rows in feed order', () => {
  it('newest first, then by id; the same id is replaced, never doubled (a page and the stream overlap)', () => {
    let rows = [row('b', '2026-11-25T10:00:00Z'), row('a', '2026-11-25T09:00:00Z')];
    rows = upsert(rows, row('c', '2026-11-25T11:00:00Z'));
    rows = upsert(rows, row('d', '2026-11-25T10:00:00Z'));
    rows = upsert(rows, row('b', '2026-11-25T10:00:00Z', { starred: true }));
    expect(ids(rows)).toEqual(['c', 'd', 'b', 'a']);
    expect(rows.find((r) => r.id === 'b')!.starred).toBe(true);
    expect(ids(mergePage(rows, [row('a', '2026-11-25T09:00:00Z'), row('e', '2026-11-25T08:00:00Z')]))).toEqual([
      'c',
      'd',
      'b',
      'a',
      'e',
    ]);
  });
});

describe('the stream hand-off (document 2, live stream)', () => {
  const shown = [row('b', '2026-11-25T10:00:00Z', { interval: true }), row('a', '2026-11-25T09:00:00Z')];
  const f = (o: Partial<StreamFrame>): StreamFrame => ({ ...row('n', '2026-11-25T12:00:00Z'), seq: 7, ...o });

  it('a new event that matches goes on top; one that does not is ignored; debug stays hidden', () => {
    expect(ids(applyFrame(shown, f({}), {}).rows)).toEqual(['n', 'b', 'a']);
    expect(applyFrame(shown, f({}), {}).rows[0]).not.toHaveProperty('seq');
    expect(applyFrame(shown, f({ camera_id: 'c9' }), { camera: 'c1' })).toEqual({ rows: shown, reconcile: null });
    expect(applyFrame(shown, f({ severity: 0 }), {})).toEqual({ rows: shown, reconcile: null });
    expect(ids(applyFrame(shown, f({ severity: 0 }), { severity: 'debug' }).rows)).toEqual(['n', 'b', 'a']);
  });

  it('a tombstone removes its row', () => {
    expect(ids(applyFrame(shown, f({ id: 'b', deleted: true }), {}).rows)).toEqual(['a']);
  });

  it('updated changes a row shown, drops it when it no longer matches, asks for one not shown', () => {
    const closed = applyFrame(
      shown,
      f({ id: 'b', occurred_at: '2026-11-25T10:00:00Z', updated: true, ended_at: '2026-11-25T10:05:00Z' }),
      {},
    );
    expect(closed.rows.find((r) => r.id === 'b')!.ended_at).toBe('2026-11-25T10:05:00Z');
    expect(closed.rows.find((r) => r.id === 'b')).not.toHaveProperty('updated');
    expect(
      ids(
        applyFrame(
          shown,
          f({
            id: 'b',
            occurred_at: '2026-11-25T10:00:00Z',
            updated: true,
            ended_at: '2026-11-25T10:05:00Z',
            interval: true,
          }),
          { open: true },
        ).rows,
      ),
    ).toEqual(['a']);
    expect(applyFrame([], f({ id: 'z', updated: true, starred: true }), { starred: true }).reconcile).toEqual({
      id: 'z',
      occurred_at: '2026-11-25T12:00:00Z',
    });
  });

  it('reconcile_required is never shown as it came: its key is asked for', () => {
    expect(applyFrame(shown, f({ reconcile_required: true }), {})).toEqual({
      rows: shown,
      reconcile: { id: 'n', occurred_at: '2026-11-25T12:00:00Z' },
    });
  });

  it('a search or tag filter the client cannot judge: the key is asked for', () => {
    expect(applyFrame(shown, f({}), { q: 'AB12' })).toEqual({
      rows: shown,
      reconcile: { id: 'n', occurred_at: '2026-11-25T12:00:00Z' },
    });
  });
});
