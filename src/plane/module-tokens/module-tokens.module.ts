import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { ModuleTokensService } from './module-tokens.service.js';
import { moduleTokensRoutes } from './module-tokens.routes.js';

/**
 * Module tokens (administrators manage them; analytics modules send events with them). The
 * intake and close scopes authenticate with this service too (routes.ts).
 */
export function createModuleTokens(deps: {
  db: Db;
  clock: Clock;
  orgs: OrgsService;
  audit: AuditService;
}): DomainParts & { moduleTokens: ModuleTokensService } {
  const moduleTokens = new ModuleTokensService(deps.db, deps.clock, deps.orgs, deps.audit);
  return { moduleTokens, routes: { admin: (app) => moduleTokensRoutes(app, { moduleTokens }) }, jobs: noJobs };
}
