import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { TagsService } from './tags.service.js';
import { tagsRoutes } from './tags.routes.js';

/** Tags of an organisation's cameras (administrators); camera rights may name them. */
export function createTags(deps: {
  db: Db;
  orgs: OrgsService;
  audit: AuditService;
}): DomainParts & { tags: TagsService } {
  const tags = new TagsService(deps.db, deps.orgs, deps.audit);
  return { tags, routes: { admin: (app) => tagsRoutes(app, { tags }) }, jobs: noJobs };
}
