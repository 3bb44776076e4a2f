import { describe, expect, it } from 'vitest';
import { offsetMinutes, periodRange } from '../../src/common/calendar.js';

// One module for the plane and the console (web/src/lib/period.ts re-exports it).
describe('dashboard periods in the calendar of a time zone', () => {
  const now = Date.UTC(2026, 10, 25, 20, 30, 0); // Wednesday 25 November 2026, 20:30 UTC

  it('offsets, daylight saving included', () => {
    expect(offsetMinutes(new Date(now), 'UTC')).toBe(0);
    expect(offsetMinutes(new Date(now), 'Europe/Berlin')).toBe(60);
    expect(offsetMinutes(new Date(Date.UTC(2026, 6, 1)), 'Europe/Berlin')).toBe(120);
    expect(offsetMinutes(new Date(now), 'Asia/Kolkata')).toBe(330);
  });

  it.each([
    ['last_24h', 'UTC', '2026-11-24T20:30:00.000Z'],
    ['last_7d', 'UTC', '2026-11-18T20:30:00.000Z'],
    ['today', 'UTC', '2026-11-25T00:00:00.000Z'],
    ['today', 'Europe/Berlin', '2026-11-24T23:00:00.000Z'],
    ['today', 'Asia/Tokyo', '2026-11-25T15:00:00.000Z'],
    ['week', 'UTC', '2026-11-23T00:00:00.000Z'],
    ['month', 'America/New_York', '2026-11-01T04:00:00.000Z'],
  ] as const)('%s in %s starts at %s and ends now', (period, tz, from) => {
    const r = periodRange(period, tz, now);
    expect(r.from.toISOString()).toBe(from);
    expect(r.to.getTime()).toBe(now);
  });
});
