import { describe, expect, it } from 'vitest';
import {
  filtersFromSearch,
  frameMatches,
  searchOfFilters,
  showsDebug,
  type FrameFields,
} from '../../web/src/lib/feed-url.js';

const frame = (o: Partial<FrameFields> = {}): FrameFields => ({
  camera_id: 'c1',
  detector: 'lpr.plate',
  category: 'camera',
  severity: 2,
  starred: false,
  ended_at: null,
  interval: false,
  occurred_at: '2026-11-25T10:00:00.000Z',
  org_id: 'o1',
  ...o,
});

describe('the feed URL (deep links)', () => {
  it('round-trips every filter in a fixed order and drops empty ones', () => {
    const f = {
      q: 'plate:AB12 "red car"',
      camera: 'c1',
      severity: 'warning',
      starred: true,
      open: true,
      detector: 'lpr.*',
      category: 'camera',
      from: '2026-11-01T00:00:00Z',
    };
    const s = searchOfFilters(f);
    expect(s).toBe(
      'from=2026-11-01T00%3A00%3A00Z&camera=c1&detector=lpr.*&severity=warning&category=camera&q=plate%3AAB12+%22red+car%22&starred=true&open=true',
    );
    expect(filtersFromSearch(`?${s}`)).toEqual(f);
    expect(searchOfFilters({ camera: '', q: undefined, starred: false })).toBe('');
    expect(filtersFromSearch('?starred=false&after_ts=x&limit=5&camera=')).toEqual({});
  });

  it('debug is shown only when a filter reaches zero (document 2)', () => {
    expect(showsDebug({})).toBe(false);
    expect(showsDebug({ severity: 'debug' })).toBe(true);
    expect(showsDebug({ severity: '0' })).toBe(true);
    expect(showsDebug({ severity_max: '0' })).toBe(true);
    expect(showsDebug({ severity: 'info', severity_max: '0' })).toBe(false);
  });
});

describe('whether a live frame belongs to the view', () => {
  it.each([
    [{}, frame(), 'yes'],
    [{}, frame({ severity: 0 }), 'no'],
    [{ severity: 'debug' }, frame({ severity: 0 }), 'yes'],
    [{ camera: 'c2' }, frame(), 'no'],
    [{ detector: 'lpr.*' }, frame(), 'yes'],
    [{ detector: 'lpr' }, frame(), 'no'],
    [{ severity: 'error' }, frame(), 'no'],
    [{ severity_max: 'info' }, frame(), 'no'],
    [{ severity: 'none' }, frame({ severity: null }), 'yes'],
    [{ severity: 'none' }, frame(), 'no'],
    [{ starred: true }, frame(), 'no'],
    [{ open: true }, frame({ interval: true, ended_at: null }), 'yes'],
    [{ open: true }, frame({ interval: true, ended_at: '2026-11-25T10:01:00Z' }), 'no'],
    [{ category: 'system' }, frame(), 'no'],
    [{ from: '2026-11-25T11:00:00Z' }, frame(), 'no'],
    [{ to: '2026-11-25T10:00:00Z' }, frame(), 'no'],
    [{ q: 'AB12' }, frame(), 'unknown'],
    [{ tag: 't1' }, frame(), 'unknown'],
    [{ tag: 't1', camera: 'c2' }, frame(), 'no'],
  ] as const)('%j with %j: %s', (f, e, want) => {
    expect(frameMatches(f, e)).toBe(want);
  });
});
