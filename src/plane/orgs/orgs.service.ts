import { randomUUID } from 'node:crypto';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { pageOf, requireUuid, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { LIMIT_FIELDS, type LimitField, type OrgCreate, type OrgPatch } from './orgs.schemas.js';
import { orgsStore, type OrgRecord } from './orgs.store.js';

export type OrgLimits = Record<LimitField, number | null>;

// The deletion of an organisation lives in org-removal.service.ts (it needs the domains that occupy one).
export type { OrgArchiver } from './org-removal.service.js';

/** Organisations (superadmin routes) and the quota limits other domains check against. */
export class OrgsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

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

  /** In a transaction the row stays share-locked: a deletion waits for the record that names it. */
  async exists(db: Db, orgId: string): Promise<boolean> {
    return (await orgsStore.get(db, orgId, { lock: 'share' })) !== undefined;
  }

  /** An organisation and its limits, without a lock (usage figures); undefined when absent or deleted. */
  find(orgId: string): Promise<OrgRecord | undefined> {
    return orgsStore.get(this.db, orgId);
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
        actor: actorOf(p),
        orgId: id,
        action: 'org.create',
        objectType: 'org',
        objectId: id,
        objectName: row.name,
        params: { ...row },
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
        actor: actorOf(p),
        orgId: id,
        action: 'org.update',
        objectType: 'org',
        objectId: id,
        objectName: after.name,
        params: { changed: Object.keys(set), ...set },
      });
      return after;
    });
  }

  /** The last step of an archive cleanup: the row of the deleted organisation. */
  removeDeleted(trx: Db, orgId: string): Promise<boolean> {
    return orgsStore.removeDeleted(trx, orgId);
  }
}
