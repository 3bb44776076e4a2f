import type { Principal } from '../http/principal.js';

export const VISIBILITIES = ['org', 'users', 'admins'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export const VISUALIZATIONS = ['kpi', 'line', 'bar', 'donut', 'table'] as const;

/** Limits of document 4 §11. */
export const WIDGETS_MAX = 32;
export const AUDIENCE_MAX = 64;

export interface Audience {
  org_id: string;
  visibility: string;
  audience_user_ids: string[];
}

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
