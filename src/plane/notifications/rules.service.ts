import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { isUuid, pageOf, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import { readScope, recordScope, writeScope } from '../rights/org-scope.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { pgCode } from '../db/pg-errors.js';
import { checkBool, checkChannelIds, checkCooldown, checkMatch, checkName, checkSchedule } from './rules.checks.js';
import { rulesStore, type RuleFields, type RuleRow } from './rules.store.js';
import { channelsStore } from './channels.store.js';
import { deliveriesStore } from './deliveries.store.js';
import type { RulesCache } from './rules.cache.js';

/** What a rule's cameras and tags are checked against (the cameras' and tags' services). */
export interface OrgInventory {
  requireCameras(db: Db, orgId: string, ids: string[]): Promise<string[]>;
  requireTags(db: Db, orgId: string, ids: string[]): Promise<string[]>;
}

type RuleInput = {
  name?: unknown;
  enabled?: unknown;
  match?: unknown;
  schedule?: unknown;
  cooldown_secs?: unknown;
  channel_ids?: unknown;
};

export const ruleJson = (r: RuleRow) => ({
  id: r.id,
  org_id: r.org_id,
  name: r.name,
  enabled: r.enabled,
  match: r.match,
  schedule: r.schedule,
  cooldown_secs: r.cooldown_secs,
  suppressed_count: Number(r.suppressed_count),
  channel_ids: r.channel_ids,
  revision: r.revision,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
});

export const requireAdmin = (p: Principal) => {
  if (p.role === 'user') throw errors.forbidden();
};

/** 409 already_exists for a name taken in the organisation (the unique index decides under races); 400 unknown_org. */
export async function uniqueName<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (pgCode(err) === '23505') throw errors.alreadyExists();
    if (pgCode(err) === '23503') throw errors.badRequest('unknown_org');
    throw err;
  }
}

/**
 * Notification rules (document 4 §13): administrators of the organisation, a superadmin any
 * organisation (`org_id`, `org`); `revision` locking; audited `notification_rule.*`. A write
 * drops the organisation's cached rules in every process (rules.cache.ts).
 */
export class RulesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly inventory: OrgInventory,
    private readonly cache: RulesCache,
  ) {}

  async list(p: Principal, q: ListArgs) {
    requireAdmin(p);
    const orgId = readScope(p, q.org);
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await rulesStore.list(this.db, { orgId, after: q.after?.toLowerCase() ?? null, limit });
    return pageOf(rows, limit, ruleJson);
  }

  private async find(p: Principal, id: string, db: Db = this.db, lock = false): Promise<RuleRow> {
    const r = isUuid(id) ? await rulesStore.get(db, id.toLowerCase(), lock) : undefined;
    const scope = recordScope(p);
    if (!r || (scope !== null && r.org_id !== scope)) throw errors.notFound();
    return r;
  }

  async get(p: Principal, id: string) {
    requireAdmin(p);
    return ruleJson(await this.find(p, id));
  }

  /** The fields of a create, or of a PATCH (`before`: what it changes); cameras, tags and channels of the organisation. */
  private async fields(trx: Db, orgId: string, b: RuleInput, before?: RuleRow): Promise<Partial<RuleFields>> {
    const set: Partial<RuleFields> = {};
    if (!before || b.name !== undefined) set.name = checkName(b.name);
    if (b.enabled !== undefined) set.enabled = checkBool(b.enabled);
    if (!before || b.match !== undefined) {
      const m = checkMatch(b.match);
      if (m.camera_ids.length) await this.inventory.requireCameras(trx, orgId, m.camera_ids);
      if (m.tag_ids.length) await this.inventory.requireTags(trx, orgId, m.tag_ids);
      set.match = m;
    }
    if (b.schedule !== undefined) set.schedule = checkSchedule(b.schedule);
    if (b.cooldown_secs !== undefined) set.cooldown_secs = checkCooldown(b.cooldown_secs);
    if (!before || b.channel_ids !== undefined) {
      const ids = checkChannelIds(b.channel_ids);
      if ((await channelsStore.countInOrg(trx, orgId, ids)) !== ids.length) throw errors.badRequest('unknown_channel');
      set.channel_ids = ids;
    }
    return set;
  }

  async create(p: Principal, body: RuleInput & { org_id?: string | null }) {
    requireAdmin(p);
    const orgId = writeScope(p, body.org_id);
    const id = uuidv7();
    const row = await uniqueName(
      this.db.transaction().execute(async (trx) => {
        const set = await this.fields(trx, orgId, body);
        await rulesStore.insert(trx, {
          id,
          org_id: orgId,
          name: set.name!,
          enabled: set.enabled ?? true,
          match: set.match!,
          schedule: set.schedule ?? null,
          cooldown_secs: set.cooldown_secs ?? 0,
          channel_ids: set.channel_ids!,
          at: new Date(this.clock.now()),
        });
        const r = (await rulesStore.get(trx, id))!;
        await this.record(trx, p, 'notification_rule.create', r, { enabled: r.enabled, channel_ids: r.channel_ids });
        await this.cache.changed(trx, orgId);
        return r;
      }),
    );
    return ruleJson(row);
  }

  async update(p: Principal, id: string, body: RuleInput & { revision: number }) {
    requireAdmin(p);
    const row = await uniqueName(
      this.db.transaction().execute(async (trx) => {
        const before = await this.find(p, id, trx, true);
        if (before.revision !== body.revision) throw errors.conflict('stale_revision');
        const set = await this.fields(trx, before.org_id, body, before);
        await rulesStore.update(trx, before.id, set, new Date(this.clock.now()));
        const r = (await rulesStore.get(trx, before.id))!;
        await this.record(trx, p, 'notification_rule.update', r, {
          changed: Object.keys(set).sort(),
          revision: r.revision,
        });
        await this.cache.changed(trx, r.org_id);
        return r;
      }),
    );
    return ruleJson(row);
  }

  async delete(p: Principal, id: string) {
    requireAdmin(p);
    return this.db.transaction().execute(async (trx) => {
      const r = await this.find(p, id, trx, true);
      await rulesStore.delete(trx, r.id);
      // Its deliveries still to send go with it; those sent or dead stay in the log.
      await deliveriesStore.dropUnsentOfRule(trx, r.id);
      await this.record(trx, p, 'notification_rule.delete', r, {});
      await this.cache.changed(trx, r.org_id);
      return { id: r.id, deleted: true as const };
    });
  }

  private record(trx: Db, p: Principal, action: string, r: RuleRow, params: Record<string, unknown>) {
    return this.audit.record(trx, {
      actor: actorOf(p),
      orgId: r.org_id,
      action,
      objectType: 'notification_rule',
      objectId: r.id,
      objectName: r.name,
      params,
    });
  }
}
