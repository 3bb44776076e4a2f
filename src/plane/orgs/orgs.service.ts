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

/** Whether something that keeps an organisation alive (a user, camera or tag) is left in it. */
export type OrgOccupant = (db: Db, orgId: string) => Promise<boolean>;

/**
 * The archive cleanup of a deleted organisation (purge domain). `queue` runs in the deleting
 * transaction: it ends what must stop at once (module tokens) and queues a cleanup job when the
 * organisation still holds event history; `start` runs the job after commit.
 */
export interface OrgArchiver {
  queue(trx: Db, orgId: string, createdBy: string | null): Promise<{ job: { id: string; preview: Record<string, number> } | null; module_tokens: number }>;
  start(): void;
}

/** Organisations (superadmin routes) and the quota limits other domains check against. */
export class OrgsService {
  /** Registered by the domains whose records keep an organisation (409 org_not_empty). */
  readonly occupants: OrgOccupant[] = [];
  archiver?: OrgArchiver;

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

  /** In a transaction the row stays share-locked: a deletion waits for the record that names it. */
  async exists(db: Db, orgId: string): Promise<boolean> {
    return (await orgsStore.get(db, orgId, { lock: 'share' })) !== undefined;
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

  /**
   * An organisation with users, cameras or tags is 409 org_not_empty. One that still holds event
   * history (events, attachments) goes at once for every read and leaves a cleanup job of kind
   * `archive` that removes the history and then the row (`cleanup_job_id` in the reply, null
   * when there was nothing to clean up). Its module tokens stop at once.
   */
  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true; cleanup_job_id: string | null }> {
    const id = requireUuid(rawId);
    if (id === p.orgId) throw errors.conflict('org_not_empty');
    let queued = false;
    try {
      const reply = await this.db.transaction().execute(async (trx) => {
        const before = await orgsStore.get(trx, id, { lock: true });
        if (!before) throw errors.notFound();
        for (const occupied of this.occupants) if (await occupied(trx, id)) throw errors.conflict('org_not_empty');
        const archive = this.archiver ? await this.archiver.queue(trx, id, p.userId) : { job: null, module_tokens: 0 };
        const now = new Date(this.clock.now());
        if (archive.job) await orgsStore.markDeleted(trx, id, now);
        else await orgsStore.delete(trx, id);
        // (a key naming tokens would be redacted as a secret)
        const params: Record<string, unknown> = { cleanup_job_id: archive.job?.id ?? null, revoked_modules: archive.module_tokens };
        if (archive.job) params.preview = archive.job.preview;
        await this.audit.record(trx, {
          actor: actorOf(p), orgId: id, action: 'org.delete', objectType: 'org', objectId: id, objectName: before.name, params,
        });
        queued = archive.job !== null;
        return { id, deleted: true as const, cleanup_job_id: archive.job?.id ?? null };
      });
      if (queued) this.archiver?.start();
      return reply;
    } catch (err) {
      // A table of another domain that still references the organisation: the database names the rule.
      if (pgCode(err) === FOREIGN_KEY_VIOLATION) throw errors.conflict('org_not_empty');
      throw err;
    }
  }

  /** The last step of an archive cleanup: the row of the deleted organisation. */
  removeDeleted(trx: Db, orgId: string): Promise<boolean> {
    return orgsStore.removeDeleted(trx, orgId);
  }
}
