import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { UsageService } from '../usage/usage.service.js';
import type { UsersService } from '../users/users.service.js';
import type { AnalyticsService } from '../events/analytics/analytics.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { BoardChecks } from './boards.checks.js';
import { ReportsService } from './reports.service.js';
import { DashboardsService } from './dashboards.service.js';
import { dashboardsRoutes } from './dashboards.routes.js';
import { dashboardsStore } from './dashboards.store.js';

/**
 * The template fields that saved reports and widgets' inline definitions use, for the templates
 * domain (built before this one): a function of the database alone, like `eventDetectors`.
 */
export function analyticsTemplateUse(db: Db) {
  return async (trx: Db, templateId: string): Promise<Set<string>> => {
    const keys = new Set<string>();
    const visit = (v: unknown): void => {
      if (Array.isArray(v)) {
        v.forEach(visit);
        return;
      }
      if (typeof v !== 'object' || v === null) return;
      const o = v as Record<string, unknown>;
      if (o.template_id === templateId && typeof o.key === 'string') keys.add(o.key);
      Object.values(o).forEach(visit);
    };
    (await dashboardsStore.definitionsNaming(trx ?? db, templateId)).forEach(visit);
    return keys;
  };
}

/** Saved reports, dashboards and widgets (issue 13): after the event domains (analytics) and usage (quotas). */
export function createDashboards(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  usage: UsageService;
  users: UsersService;
  analytics: AnalyticsService;
}): DomainParts & { reports: ReportsService; dashboards: DashboardsService } {
  const checks = new BoardChecks(deps.db, deps.users, deps.analytics);
  const reports = new ReportsService(deps.db, deps.clock, deps.audit, deps.usage, deps.analytics, checks);
  const dashboards = new DashboardsService(deps.db, deps.clock, deps.audit, deps.usage, deps.users, checks);
  return {
    reports,
    dashboards,
    routes: { session: (app) => dashboardsRoutes(app, { reports, dashboards }) },
    jobs: noJobs,
  };
}
