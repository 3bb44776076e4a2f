import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { AuditService } from '../audit/audit.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { UsersService, type OrgChangeRule } from './users.service.js';
import { usersAdminRoutes, usersSelfRoutes } from './users.routes.js';

/** Users: administered by administrators, each user edits its own name and password. */
export function createUsers(deps: {
  db: Db;
  clock: Clock;
  orgs: OrgsService;
  audit: AuditService;
  auth: AuthService;
  grants: OrgChangeRule;
}): DomainParts & { users: UsersService } {
  const users = new UsersService(deps.db, deps.clock, deps.orgs, deps.audit, deps.auth, deps.grants);
  return {
    users,
    routes: { session: (app) => usersSelfRoutes(app, { users }), admin: (app) => usersAdminRoutes(app, { users }) },
    jobs: noJobs,
  };
}
