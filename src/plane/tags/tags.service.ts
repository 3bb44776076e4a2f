import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { pageOf, requireUuid, isUuid, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import { readScope, recordScope, writeScope } from '../rights/org-scope.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { tagsStore } from './tags.store.js';
import { rightsChanged } from '../live/bus.js';

/** Tags label cameras and carry camera rights (a user granted a tag sees its cameras). */
export class TagsService {
  constructor(
    private readonly db: Db,
    private readonly orgs: OrgsService,
    private readonly audit: AuditService,
  ) {}

  /** Whether the organisation has tags (they keep it: 409 org_not_empty). */
  async anyInOrg(db: Db, orgId: string): Promise<boolean> {
    return (await tagsStore.countInOrg(db, orgId)) > 0;
  }

  /** Distinct, lower-cased ids, each a tag of `orgId`; otherwise 400 unknown_tag. */
  async requireInOrg(db: Db, orgId: string, ids: string[]): Promise<string[]> {
    if (ids.some((i) => !isUuid(i))) throw errors.badRequest('unknown_tag');
    const set = [...new Set(ids.map((i) => i.toLowerCase()))];
    if ((await tagsStore.countInOrg(db, orgId, set)) !== set.length) throw errors.badRequest('unknown_tag');
    return set;
  }

  async list(p: Principal, q: ListArgs) {
    const orgId = readScope(p, q.org);
    const limit = q.limit ?? DEFAULT_LIMIT;
    return pageOf(await tagsStore.list(this.db, { orgId, after: q.after ?? null, limit }), limit, (r) => r);
  }

  async create(p: Principal, body: { name: string; org_id?: string }) {
    const orgId = writeScope(p, body.org_id);
    const tag = { id: randomUUID(), org_id: orgId, name: body.name };
    return this.db.transaction().execute(async (trx) => {
      const limits = await this.orgs.lockLimits(trx, orgId);
      if (!limits) throw errors.badRequest('unknown_org');
      if (limits.max_tags !== null && (await tagsStore.countInOrg(trx, orgId)) >= limits.max_tags) {
        throw errors.quotaReached('max_tags_reached');
      }
      await tagsStore.insert(trx, tag);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId,
        action: 'tag.create',
        objectType: 'tag',
        objectId: tag.id,
        objectName: tag.name,
        params: { name: tag.name, org_id: orgId },
      });
      return tag;
    });
  }

  async update(p: Principal, rawId: string, body: { name?: string }) {
    const id = requireUuid(rawId);
    return this.db.transaction().execute(async (trx) => {
      const before = await tagsStore.get(trx, id, recordScope(p), { lock: true });
      if (!before) throw errors.notFound();
      if (body.name === undefined || body.name === before.name) return before;
      await tagsStore.rename(trx, id, body.name);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'tag.update',
        objectType: 'tag',
        objectId: id,
        objectName: body.name,
        params: { changed: ['name'], name: body.name, previous_name: before.name },
      });
      return { ...before, name: body.name };
    });
  }

  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true }> {
    const id = requireUuid(rawId);
    return this.db.transaction().execute(async (trx) => {
      const before = await tagsStore.get(trx, id, recordScope(p), { lock: true });
      if (!before) throw errors.notFound();
      await tagsStore.delete(trx, id);
      // The rights the tag gave go with it (grants and camera links cascade).
      await rightsChanged(trx, before.org_id);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'tag.delete',
        objectType: 'tag',
        objectId: id,
        objectName: before.name,
        params: {},
      });
      return { id, deleted: true as const };
    });
  }
}
