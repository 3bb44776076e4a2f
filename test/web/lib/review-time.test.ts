import { describe, expect, it } from 'vitest';
import {
  epochOfLocal,
  localInputOf,
  momentOfSearch,
  playFromHere,
  scaleLabel,
  wallClock,
} from '../../../web/src/lib/review-time.js';
import { segmentsOf, ticketOf } from '../../../web/src/lib/recording.js';

// Issue 23: recording time is the wall clock with its zone, in the zone and clock of the user's preferences.
const BERLIN = { zone: 'Europe/Berlin', clock: '24h' } as const;
const NEW_YORK_12 = { zone: 'America/New_York', clock: '12h' } as const;
const AT = Date.UTC(2026, 10, 26, 13, 3, 27); // 2026-11-26 13:03:27 UTC

describe('wallClock', () => {
  it('writes the date, the time and the zone, never an offset', () => {
    expect(wallClock(AT, BERLIN)).toBe('2026-11-26 14:03:27 GMT+1');
    expect(wallClock(AT, { zone: 'UTC', clock: '24h' })).toBe('2026-11-26 13:03:27 UTC');
    expect(wallClock(AT, NEW_YORK_12)).toBe('2026-11-26 08:03:27 AM EST');
    expect(wallClock(Date.UTC(2026, 6, 1, 4, 0, 0), NEW_YORK_12)).toBe('2026-07-01 12:00:00 AM EDT');
  });
  it('midnight on the 24-hour clock is 00', () => {
    expect(wallClock(Date.UTC(2026, 10, 25, 23, 0, 5), BERLIN)).toBe('2026-11-26 00:00:05 GMT+1');
  });
  it('no time is a dash; an unknown zone falls back to the browser zone, still named', () => {
    expect(wallClock(null, BERLIN)).toBe('—');
    expect(wallClock(Number.NaN, BERLIN)).toBe('—');
    expect(wallClock(AT, { zone: 'Mars/Olympus', clock: '24h' })).toMatch(/^2026-11-2\d \d\d:\d\d:27 \S+/);
  });
  it('scale labels: seconds when zoomed in, the day when the span is over a day', () => {
    expect(scaleLabel(AT, 5 * 60_000, BERLIN)).toBe('14:03:27');
    expect(scaleLabel(AT, 3600_000, BERLIN)).toBe('14:03');
    expect(scaleLabel(AT, 3 * 86_400_000, BERLIN)).toBe('11-26 14:03');
  });
});

describe('the date and time picker in the chosen zone', () => {
  it('an instant shows as the local time of the zone and reads back to the same instant', () => {
    expect(localInputOf(AT, BERLIN)).toBe('2026-11-26T14:03:27');
    expect(epochOfLocal('2026-11-26T14:03:27', BERLIN)).toBe(AT);
    expect(epochOfLocal('2026-11-26T14:03', BERLIN)).toBe(AT - 27_000);
    expect(epochOfLocal('2026-11-26T08:03:27', NEW_YORK_12)).toBe(AT);
  });
  it('summer time is the offset of that day', () => {
    expect(epochOfLocal('2026-07-01T12:00:00', BERLIN)).toBe(Date.UTC(2026, 6, 1, 10));
    // Just after the clocks went forward (02:00 -> 03:00 on 29 March 2026).
    expect(epochOfLocal('2026-03-29T03:30:00', BERLIN)).toBe(Date.UTC(2026, 2, 29, 1, 30));
  });
  it('what is not a date and time is null', () => {
    expect(epochOfLocal('', BERLIN)).toBeNull();
    expect(epochOfLocal('yesterday', BERLIN)).toBeNull();
  });
});

describe('play from here', () => {
  it('leads to the camera page 10 s before the event; the camera page reads ?t= back', () => {
    const url = playFromHere('cam-1', new Date(AT).toISOString());
    expect(url).toBe(`/cameras/cam-1?t=${AT / 1000 - 10}`);
    expect(momentOfSearch(url.slice(url.indexOf('?')))).toBe(AT - 10_000);
    expect(momentOfSearch('')).toBeNull();
    expect(momentOfSearch('?t=soon')).toBeNull();
    expect(momentOfSearch('?t=-5')).toBeNull();
  });
});

describe('a playlist without segment names: its program date-times', () => {
  const T = AT;
  const playlist = [
    '#EXTM3U',
    `#EXT-X-PROGRAM-DATE-TIME:${new Date(T).toISOString()}`,
    '#EXTINF:2.000,',
    'a.ts?t=tick%2Bet',
    '#EXTINF:2.000,',
    'b.ts?t=tick%2Bet',
    '#EXT-X-DISCONTINUITY',
    `#EXT-X-PROGRAM-DATE-TIME:${new Date(T + 60_000).toISOString()}`,
    '#EXTINF:1.000,',
    'c.ts?t=tick%2Bet',
    '#EXT-X-ENDLIST',
  ].join('\n');
  it('map positions to the wall clock across the gap', () => {
    expect(segmentsOf(playlist)).toEqual([
      { startMs: T, durationMs: 2000, offsetS: 0 },
      { startMs: T + 2000, durationMs: 2000, offsetS: 2 },
      { startMs: T + 60_000, durationMs: 1000, offsetS: 4 },
    ]);
    expect(ticketOf(playlist)).toBe('tick+et');
    expect(ticketOf('#EXTM3U\ndvr-1.ts\n')).toBeNull();
  });
});
