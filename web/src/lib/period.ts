/** The dashboards' periods (document 2): a range ending now in the calendar of a time zone. */
export const PERIODS = ['today', 'last_24h', 'week', 'last_7d', 'month', 'last_30d'] as const;
export type Period = (typeof PERIODS)[number];

const DAY = 86_400_000;

/** Minutes the zone is ahead of UTC at `at`. */
export function offsetMinutes(at: number, tz: string): number {
  const parts = Object.fromEntries(new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
    .formatToParts(new Date(at)).filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000);
}

/** The instant of a local midnight of `tz` (the earlier one where the zone repeats it). */
function localMidnight(y: number, m: number, d: number, tz: string): number {
  const wall = Date.UTC(y, m - 1, d);
  const first = wall - offsetMinutes(wall, tz) * 60_000;
  return wall - offsetMinutes(first, tz) * 60_000;
}

export function periodRange(period: Period, tz: string, now: number): { from: Date; to: Date } {
  const local = new Date(now + offsetMinutes(now, tz) * 60_000);
  const [y, m, d] = [local.getUTCFullYear(), local.getUTCMonth() + 1, local.getUTCDate()];
  let from: number;
  switch (period) {
    case 'last_24h': from = now - DAY; break;
    case 'last_7d': from = now - 7 * DAY; break;
    case 'last_30d': from = now - 30 * DAY; break;
    case 'today': from = localMidnight(y, m, d, tz); break;
    case 'week': {
      const monday = new Date(Date.UTC(y, m - 1, d) - ((local.getUTCDay() + 6) % 7) * DAY);
      from = localMidnight(monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate(), tz);
      break;
    }
    case 'month': from = localMidnight(y, m, 1, tz); break;
  }
  return { from: new Date(from), to: new Date(Math.max(now, from + 1000)) };
}
