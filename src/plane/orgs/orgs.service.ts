import { randomUUID } from 'node:crypto';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { FOREIGN_KEY_VIOLATION, pgCode } from '../db/pg-errors.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { pageOf, requireUuid, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { LIMIT_FIELDS, type LimitField, type OrgCreate, type OrgPatch } from './orgs.schemas.js';
import { orgsStore, type OrgRecord } from './orgs.store.js';

export type OrgLimits = Record<LimitField, number | null>;

/** Organisations (superadmin routes) and the quota limits other domains check against. */
export class OrgsService {
  constructor(private readonly db: Db, private readonly clock: Clock, private readonly audit: AuditService) {}

  /** The organisation named `default`, created on first use (bootstrap). */
  async ensureDefault(trx: Db): Promise<string> {
    const found = await orgsStore.findByName(trx, 'default');
    if (found) return found.id;
    const id = randomUUID();
    await orgsStore.insert(trx, { id, name: 'default' });
    return id;
  }

  /**
   * The limits of an organisation, its row locked until the caller's transaction ends: two
   * concurrent creations in one organisation then count one after the other and a quota
   * cannot be overshot. Undefined when the organisation does not exist.
   */
  async lockLimits(trx: Db, orgId: string): Promise<OrgLimits | undefined> {
    return orgsStore.get(trx, orgId, { lock: true });
  }

  async exists(db: Db, orgId: string): Promise<boolean> {
    return (await orgsStore.get(db, orgId)) !== undefined;
  }

  async list(q: ListArgs) {
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await orgsStore.list(this.db, { after: q.after ?? null, limit });
    return pageOf(rows, limit, (r) => r);
  }

  async create(p: Principal, body: OrgCreate): Promise<OrgRecord> {
    const id = randomUUID();
    return this.db.transaction().execute(async (trx) => {
      await orgsStore.insert(trx, { ...body, id });
      const row = (await orgsStore.get(trx, id))!;
      await this.audit.record(trx, {
        actor: actorOf(p), orgId: id, action: 'org.create', objectType: 'org', objectId: id, objectName: row.name, params: { ...row },
      });
      return row;
    });
  }

  async update(p: Principal, rawId: string, body: OrgPatch): Promise<OrgRecord> {
    const id = requireUuid(rawId);
    return this.db.transaction().execute(async (trx) => {
      const before = await orgsStore.get(trx, id, { lock: true });
      if (!before) throw errors.notFound();
      const set: Partial<OrgRecord> = {};
      if (body.name !== undefined && body.name !== before.name) set.name = body.name;
      for (const f of LIMIT_FIELDS) if (body[f] !== undefined && body[f] !== before[f]) set[f] = body[f];
      // Nothing changed: no write and no audit record (document 1 audits changes).
      if (!Object.keys(set).length) return before;
      await orgsStore.update(trx, id, set, new Date(this.clock.now()));
      const after = (await orgsStore.get(trx, id))!;
      await this.audit.record(trx, {
        actor: actorOf(p), orgId: id, action: 'org.update', objectType: 'org', objectId: id, objectName: after.name,
        params: { changed: Object.keys(set), ...set },
      });
      return after;
    });
  }

  /** Only an empty organisation can go: anything that references it (users, tags, cameras...) is a 409. */
  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true }> {
    const id = requireUuid(rawId);
    if (id === p.orgId) throw errors.conflict('org_not_empty');
    try {
      return await this.db.transaction().execute(async (trx) => {
        const before = await orgsStore.get(trx, id, { lock: true });
        if (!before) throw errors.notFound();
        await orgsStore.delete(trx, id);
        await this.audit.record(trx, {
          actor: actorOf(p), orgId: id, action: 'org.delete', objectType: 'org', objectId: id, objectName: before.name, params: {},
        });
        return { id, deleted: true as const };
      });
    } catch (err) {
      // Every table that belongs to an organisation references it; the database names the rule.
      if (pgCode(err) === FOREIGN_KEY_VIOLATION) throw errors.conflict('org_not_empty');
      throw err;
    }
  }
}
