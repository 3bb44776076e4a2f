/**
 * Calendar time of an IANA zone, with Intl only (no Node API): the plane's analytics and
 * dashboards and the web console (web/src) compute periods with this one module.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in minutes (Berlin in summer: +120). */
export function offsetMinutes(at: Date, tz: string): number {
  const p = Object.fromEntries(
    formatter(tz)
      .formatToParts(at)
      .map((x) => [x.type, x.value]),
  );
  const local = Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
  return Math.round((local - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** Periods of a dashboard, a report's definition and a widget (document 2, document 4 §11). */
export const PERIODS = ['today', 'last_24h', 'week', 'last_7d', 'month', 'last_30d'] as const;
export type Period = (typeof PERIODS)[number];

const DAY = 86_400_000;

/** The instant of a local midnight (the earlier one where a zone repeats it). */
function localMidnight(y: number, m: number, d: number, tz: string): number {
  const wall = Date.UTC(y, m - 1, d);
  const first = wall - offsetMinutes(new Date(wall), tz) * 60_000;
  return wall - offsetMinutes(new Date(first), tz) * 60_000;
}

/**
 * A period as a range ending now, in calendar time of `tz`: `today` from local midnight,
 * `week` from Monday's, `month` from the first's; the `last_*` periods are plain durations.
 */
export function periodRange(period: Period, tz: string, now: number): { from: Date; to: Date } {
  const local = new Date(now + offsetMinutes(new Date(now), tz) * 60_000);
  const [y, m, d] = [local.getUTCFullYear(), local.getUTCMonth() + 1, local.getUTCDate()];
  let from: number;
  switch (period) {
    case 'last_24h':
      from = now - DAY;
      break;
    case 'last_7d':
      from = now - 7 * DAY;
      break;
    case 'last_30d':
      from = now - 30 * DAY;
      break;
    case 'today':
      from = localMidnight(y, m, d, tz);
      break;
    case 'week': {
      const back = (local.getUTCDay() + 6) % 7;
      const monday = new Date(Date.UTC(y, m - 1, d) - back * DAY);
      from = localMidnight(monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate(), tz);
      break;
    }
    case 'month':
      from = localMidnight(y, m, 1, tz);
      break;
  }
  // At the very instant a period starts it is one second long, never empty.
  return { from: new Date(from), to: new Date(Math.max(now, from + 1000)) };
}
