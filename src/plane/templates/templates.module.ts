import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { TemplateCache } from './template.cache.js';
import { TemplatesService, type AnalyticsUse, type RecentDetectors } from './templates.service.js';
import { templatesRoutes } from './templates.routes.js';

/**
 * Event templates (administrators) and the cache intake and cards read them through. Built
 * before the event domains, which render with them: the detectors seen lately (for a template's
 * matches) come from the feed's store as a function, `recentDetectors`, and the fields saved reports
 * and widgets use (analytics_template_in_use) from the dashboards' store, `analyticsUse`.
 */
export function createTemplates(deps: {
  db: Db;
  clock: Clock;
  orgs: OrgsService;
  audit: AuditService;
  recentDetectors: RecentDetectors;
  analyticsUse: AnalyticsUse;
}): DomainParts & { templates: TemplatesService; templateCache: TemplateCache } {
  const templateCache = new TemplateCache(deps.db);
  const templates = new TemplatesService(
    deps.db,
    deps.clock,
    deps.orgs,
    deps.audit,
    templateCache,
    deps.recentDetectors,
    deps.analyticsUse,
  );
  return { templates, templateCache, routes: { admin: (app) => templatesRoutes(app, { templates }) }, jobs: noJobs };
}
