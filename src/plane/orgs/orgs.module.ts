import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { OrgsService } from './orgs.service.js';
import { OrgRemovalService, type OrgArchiver, type OrgOccupant } from './org-removal.service.js';
import { orgRemovalRoute, orgsRoutes } from './orgs.routes.js';

/** Organisations and their quota limits; the first inventory domain (the others check against it). */
export function createOrgs(deps: { db: Db; clock: Clock; audit: AuditService }): DomainParts & { orgs: OrgsService } {
  const orgs = new OrgsService(deps.db, deps.clock, deps.audit);
  return { orgs, routes: { superadmin: (app) => orgsRoutes(app, { orgs }) }, jobs: noJobs };
}

/**
 * The deletion of organisations: built last, from the domains whose records keep an organisation
 * (users, cameras, tags) and the event domain's archiver.
 */
export function createOrgRemoval(deps: {
  db: Db;
  clock: Clock;
  audit: AuditService;
  occupants: readonly OrgOccupant[];
  archiver: OrgArchiver;
}): DomainParts & { removal: OrgRemovalService } {
  const removal = new OrgRemovalService(deps.db, deps.clock, deps.audit, deps.occupants, deps.archiver);
  return { removal, routes: { superadmin: (app) => orgRemovalRoute(app, { removal }) }, jobs: noJobs };
}
