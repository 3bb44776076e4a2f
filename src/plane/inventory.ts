import type { Clock } from '../common/clock.js';
import type { Db } from './db/database.js';
import type { AuditService } from './audit/audit.service.js';
import type { AuthService } from './auth/auth.service.js';
import { OrgsService } from './orgs/orgs.service.js';
import { UsersService } from './users/users.service.js';

/** The inventory domains, wired once: organisations, users (with camera rights), tags, nodes, cameras. */
export class InventoryServices {
  readonly orgs: OrgsService;
  readonly users: UsersService;

  constructor(db: Db, _clock: Clock, _audit: AuditService, _auth: AuthService) {
    this.orgs = new OrgsService(db);
    this.users = new UsersService(db, this.orgs);
  }
}
