import { offsetMinutes } from '../../../common/calendar.js';

/** A bucket's start as RFC 3339 with the zone's offset at that instant: `2026-03-29T00:00:00+01:00`. */
export function bucketLabel(at: Date, tz: string): string {
  const off = offsetMinutes(at, tz);
  const local = new Date(at.getTime() + off * 60_000).toISOString().slice(0, 19);
  const sign = off < 0 ? '-' : '+';
  const a = Math.abs(off);
  return `${local}${sign}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}
