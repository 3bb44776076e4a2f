import type { Db } from '../db/database.js';
import type { Principal } from '../http/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { UsersService } from '../users/users.service.js';
import type { CamerasService } from '../cameras/cameras.service.js';
import type { TagsService } from '../tags/tags.service.js';
import { grantsStore } from './grants.store.js';
import { channels, notify } from '../live/bus.js';

export interface Grants {
  camera_ids: string[];
  tag_ids: string[];
}

/**
 * The grants a user loses on moving to another organisation. Built before the users domain,
 * which calls it inside its update (the grants service itself needs the users service).
 */
export class GrantsReset {
  async clearGrants(trx: Db, userId: string): Promise<void> {
    await grantsStore.replace(trx, userId, { camera_ids: [], tag_ids: [] });
  }
}

/**
 * Camera rights of a user: cameras granted directly and tags whose cameras it may see. They
 * matter for role `user`; camera-rights.ts applies them. Ids always belong to the user's organisation.
 */
export class GrantsService {
  constructor(
    private readonly db: Db,
    private readonly audit: AuditService,
    private readonly users: UsersService,
    private readonly cameras: CamerasService,
    private readonly tags: TagsService,
  ) {}

  async get(p: Principal, userId: string): Promise<Grants> {
    const u = await this.users.visible(this.db, p, userId);
    return grantsStore.get(this.db, u.id);
  }

  /** PUT: both lists replace what the user had. */
  async put(p: Principal, userId: string, body: Grants): Promise<Grants> {
    return this.db.transaction().execute(async (trx) => {
      const u = await this.users.visible(trx, p, userId);
      const cameraIds = (await this.cameras.requireInOrg(trx, u.org_id, body.camera_ids)).sort();
      const tagIds = (await this.tags.requireInOrg(trx, u.org_id, body.tag_ids)).sort();
      const before = await grantsStore.get(trx, u.id);
      const next = { camera_ids: cameraIds, tag_ids: tagIds };
      if (before.camera_ids.join() === cameraIds.join() && before.tag_ids.join() === tagIds.join()) return next;
      await grantsStore.replace(trx, u.id, next);
      // Live event streams of this user re-read its rights before their next frame.
      await notify(trx, channels.rights, JSON.stringify({ user_id: u.id }));
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: u.org_id,
        action: 'grant.update',
        objectType: 'user',
        objectId: u.id,
        objectName: u.login,
        params: { ...next, previous: before },
      });
      return next;
    });
  }
}
