import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { UsersService } from '../users/users.service.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import type { TagsService } from '../tags/tags.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { GrantsReset, GrantsService } from './grants.service.js';
import { grantsRoutes } from './grants.routes.js';

/** The part of camera rights the users domain needs (built before it): a moved user's grants go. */
export function createGrantsReset(): GrantsReset {
  return new GrantsReset();
}

/** Camera rights of users: direct camera grants and tag grants (administrators). */
export function createRights(deps: {
  db: Db;
  audit: AuditService;
  users: UsersService;
  cameras: CamerasService;
  tags: TagsService;
}): DomainParts & { grants: GrantsService } {
  const grants = new GrantsService(deps.db, deps.audit, deps.users, deps.cameras, deps.tags);
  return { grants, routes: { admin: (app) => grantsRoutes(app, { grants }) }, jobs: noJobs };
}
