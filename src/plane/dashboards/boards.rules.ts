import type { Principal } from '../http/principal.js';
import { offsetMinutes } from '../events/analytics/analytics.labels.js';

/** Periods of a dashboard, a report's definition and a widget (document 2, document 4 §11). */
export const PERIODS = ['today', 'last_24h', 'week', 'last_7d', 'month', 'last_30d'] as const;
export type Period = (typeof PERIODS)[number];
export const VISIBILITIES = ['org', 'users', 'admins'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const VISUALIZATIONS = ['kpi', 'line', 'bar', 'donut', 'table'] as const;

/** Limits of document 4 §11. */
export const WIDGETS_MAX = 32;
export const AUDIENCE_MAX = 64;

export interface Audience { org_id: string; visibility: string; audience_user_ids: string[] }

/**
 * Who reads a dashboard or a report (document 2): a superadmin everything; in its organisation
 * an administrator everything, a user what is `org` and what is `users` with it in the audience.
 */
export function canRead(p: Principal, a: Audience): boolean {
  if (p.role === 'superadmin') return true;
  if (a.org_id !== p.orgId) return false;
  if (p.role === 'admin') return true;
  return a.visibility === 'org' || (a.visibility === 'users' && a.audience_user_ids.includes(p.userId));
}

/**
 * Whether a dashboard shows a report to more people than the report allows: an `org` report
 * anyone; an `admins` report only on an `admins` dashboard; a `users` report on an `admins`
 * dashboard or a `users` dashboard whose audience is part of the report's.
 */
export function exposesMore(dashboard: Audience, report: Audience): boolean {
  if (report.visibility === 'org') return false;
  if (report.visibility === 'admins') return dashboard.visibility !== 'admins';
  if (dashboard.visibility === 'admins') return false;
  if (dashboard.visibility === 'org') return true;
  return dashboard.audience_user_ids.some((u) => !report.audience_user_ids.includes(u));
}

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
    case 'last_24h': from = now - DAY; break;
    case 'last_7d': from = now - 7 * DAY; break;
    case 'last_30d': from = now - 30 * DAY; break;
    case 'today': from = localMidnight(y, m, d, tz); break;
    case 'week': {
      const back = (local.getUTCDay() + 6) % 7;
      const monday = new Date(Date.UTC(y, m - 1, d) - back * DAY);
      from = localMidnight(monday.getUTCFullYear(), monday.getUTCMonth() + 1, monday.getUTCDate(), tz);
      break;
    }
    case 'month': from = localMidnight(y, m, 1, tz); break;
  }
  // At the very instant a period starts it is one second long, never empty.
  return { from: new Date(from), to: new Date(Math.max(now, from + 1000)) };
}
