import { describe, expect, it } from 'vitest';
import {
  changed,
  correction,
  HOLD_MAX_MS,
  masterAt,
  mustHold,
  NUDGE_MAX,
  recordedPosition,
  reviewPlace,
  searchOfPlace,
  SEEK_OVER_S,
  stoppedClock,
} from '../../../web/src/lib/review-sync.js';
import { segmentsOf } from '../../../web/src/lib/recording.js';

describe('correction: drift to a seek or a nudge', () => {
  it('plays at the speed when the drift is below what the eye tells', () => {
    expect(correction(10.02, 10, 1)).toEqual({ kind: 'rate', rate: 1 });
    expect(correction(9.97, 10, 4)).toEqual({ kind: 'rate', rate: 4 });
  });
  it('slows a video that is ahead and hurries one that is behind, in proportion, at most NUDGE_MAX', () => {
    const ahead = correction(10.15, 10, 1);
    const behind = correction(9.85, 10, 1);
    expect(ahead.kind).toBe('rate');
    expect(behind.kind).toBe('rate');
    const rate = (c: ReturnType<typeof correction>) => (c.kind === 'rate' ? c.rate : Number.NaN);
    expect(rate(ahead)).toBeCloseTo(1 - NUDGE_MAX / 2, 5);
    expect(rate(behind)).toBeCloseTo(1 + NUDGE_MAX / 2, 5);
    expect(rate(correction(10 + SEEK_OVER_S - 0.001, 10, 2))).toBeCloseTo(2 * (1 - NUDGE_MAX), 2);
    expect(rate(correction(10.1, 10, 1))).toBeGreaterThan(rate(correction(10.2, 10, 1)));
  });
  it('seeks past SEEK_OVER_S either way', () => {
    expect(correction(10.31, 10, 1)).toEqual({ kind: 'seek', to: 10 });
    expect(correction(3, 10, 8)).toEqual({ kind: 'seek', to: 10 });
  });
});

describe('recordedPosition: the playlist position of a wall-clock moment', () => {
  const t0 = 1_795_680_000_000;
  const playlist = [
    '#EXTM3U',
    '#EXTINF:2.000,',
    `dvr-${t0}.ts`,
    '#EXTINF:2.000,',
    `dvr-${t0 + 2500}.ts`,
    '#EXTINF:2.000,',
    `dvr-${t0 + 60_000}.ts`,
    '#EXT-X-ENDLIST',
  ].join('\n');
  const segments = segmentsOf(playlist);
  it('maps a recorded moment, joins a gap under 1.5 s, and answers null in a gap, before and after', () => {
    expect(recordedPosition(segments, t0)).toBe(0);
    expect(recordedPosition(segments, t0 + 1500)).toBe(1.5);
    expect(recordedPosition(segments, t0 + 2200)).toBe(2);
    expect(recordedPosition(segments, t0 + 3500)).toBe(3);
    expect(recordedPosition(segments, t0 + 30_000)).toBeNull();
    expect(recordedPosition(segments, t0 + 61_000)).toBe(5);
    expect(recordedPosition(segments, t0 - 1000)).toBeNull();
    expect(recordedPosition(segments, t0 + 62_000)).toBeNull();
    expect(recordedPosition([], t0)).toBeNull();
  });
});

describe('the master clock', () => {
  it('runs at its speed while playing, stands still while paused or held, and never jumps when changed', () => {
    let c = stoppedClock(1000, 0);
    expect(masterAt(c, 500)).toBe(1000);
    c = changed(c, 500, { playing: true });
    expect(masterAt(c, 1500)).toBe(2000);
    c = changed(c, 1500, { speed: 4 });
    expect(masterAt(c, 1500)).toBe(2000);
    expect(masterAt(c, 2000)).toBe(4000);
    c = changed(c, 2000, { held: true });
    expect(masterAt(c, 9000)).toBe(4000);
    c = changed(c, 9000, { held: false });
    expect(masterAt(c, 9250)).toBe(5000);
    c = changed(c, 9250, { anchorMs: 100 });
    expect(masterAt(c, 9500)).toBe(1100);
    c = changed(c, 9500, { playing: false });
    expect(masterAt(c, 20_000)).toBe(1100);
  });
  it('holds for a loading video up to HOLD_MAX_MS, then goes on without it', () => {
    expect(mustHold([null, null], 10_000)).toBe(false);
    expect(mustHold([null, 9000], 10_000)).toBe(true);
    expect(mustHold([10_000 - HOLD_MAX_MS, null], 10_000)).toBe(false);
  });
});

describe("the review's address", () => {
  it('keeps at most four distinct cameras and the start moment, and writes one address per place', () => {
    const p = reviewPlace('?cameras=a,b,a,c,d,e&from=2026-11-26T10:00:00.000Z');
    expect(p).toEqual({ cameras: ['a', 'b', 'c', 'd'], from: Date.parse('2026-11-26T10:00:00Z') });
    expect(searchOfPlace(p)).toBe('?cameras=a,b,c,d&from=2026-11-26T10:00:00.000Z');
    expect(reviewPlace(searchOfPlace(p))).toEqual(p);
    expect(reviewPlace('?from=yesterday')).toEqual({ cameras: [], from: null });
    expect(searchOfPlace({ cameras: [], from: null })).toBe('');
  });
});
