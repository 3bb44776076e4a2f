import type { Db } from '../db/database.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { EvidenceService } from '../evidence/evidence.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { UsageService } from './usage.service.js';
import { usageRoutes } from './usage.routes.js';

/**
 * Quota usage (document 1): reads the prepared counters. Built after the event domains (it
 * reads the evidence accounting); the session expiry that keeps sessions_count exact is auth's job.
 */
export function createUsage(deps: {
  db: Db;
  /** the usage page's reads (ReadRoute.db): they may lag */
  readDb: Db;
  orgs: OrgsService;
  auth: AuthService;
  evidence: Pick<EvidenceService, 'usage'>;
}): DomainParts & { usage: UsageService } {
  const usage = new UsageService(deps.db, deps.orgs, deps.auth, deps.evidence, deps.readDb);
  return { usage, routes: { admin: (app) => usageRoutes(app, { usage }) }, jobs: noJobs };
}
