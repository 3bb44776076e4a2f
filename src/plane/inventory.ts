import type { Clock } from '../common/clock.js';
import type { Db } from './db/database.js';
import type { AuditService } from './audit/audit.service.js';
import type { AuthService } from './auth/auth.service.js';
import type { SecretBox } from './crypto/secret-box.js';
import { OrgsService } from './orgs/orgs.service.js';
import { UsersService } from './users/users.service.js';
import { TagsService } from './tags/tags.service.js';
import { NodesService } from './nodes/nodes.service.js';
import { CamerasService } from './cameras/cameras.service.js';
import { GrantsService } from './rights/grants.service.js';
import { ViewingService } from './cameras/viewing.service.js';

/**
 * The inventory domains, wired once: organisations, users (with camera rights), tags, nodes,
 * cameras. Order follows the dependencies; a domain reaches another only through its service.
 */
export class InventoryServices {
  readonly orgs: OrgsService;
  readonly users: UsersService;
  readonly tags: TagsService;
  readonly nodes: NodesService;
  readonly cameras: CamerasService;
  readonly grants: GrantsService;
  readonly viewing: ViewingService;

  constructor(db: Db, clock: Clock, audit: AuditService, auth: AuthService, box: SecretBox, opts: { allowPrivateTargets?: boolean } = {}) {
    this.orgs = new OrgsService(db, clock, audit);
    this.users = new UsersService(db, clock, this.orgs, audit, auth);
    this.tags = new TagsService(db, this.orgs, audit);
    this.nodes = new NodesService(db, clock, audit, box, opts.allowPrivateTargets ?? false);
    this.cameras = new CamerasService(db, clock, audit, this.orgs, this.nodes, this.tags);
    this.grants = new GrantsService(db, audit, this.users, this.cameras, this.tags);
    this.viewing = new ViewingService(db, clock, audit, this.cameras, this.nodes);
    this.orgs.occupants.push((d, o) => this.users.anyInOrg(d, o), (d, o) => this.cameras.anyInOrg(d, o), (d, o) => this.tags.anyInOrg(d, o));
  }
}
