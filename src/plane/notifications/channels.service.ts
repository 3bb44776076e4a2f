import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { isUuid, pageOf, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import { readScope, recordScope, writeScope } from '../rights/org-scope.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { checkBool, checkName } from './rules.checks.js';
import { requireAdmin, uniqueName } from './rules.service.js';
import { checkKind, checkSettings, type ChannelInput } from './channels.checks.js';
import { channelsStore, type ChannelFields, type ChannelRow } from './channels.store.js';
import { rulesStore } from './rules.store.js';
import { deliveriesStore } from './deliveries.store.js';
import type { RulesCache } from './rules.cache.js';
import { secretContext, type Dispatcher } from './dispatcher.js';
import { deliveryJson } from './deliveries.service.js';

export const channelJson = (c: ChannelRow) => {
  const base = { id: c.id, org_id: c.org_id, name: c.name, kind: c.kind, enabled: c.enabled };
  const cfg = c.config;
  const kind =
    c.kind === 'webhook'
      ? { url: cfg.url!, secret_configured: c.secret_enc !== null, headers: cfg.headers ?? {} }
      : c.kind === 'email'
        ? { to: cfg.to ?? [] }
        : {
            url: cfg.url!,
            topic: cfg.topic!,
            username: cfg.username ?? null,
            password_configured: c.secret_enc !== null,
            qos: cfg.qos ?? 1,
          };
  return {
    ...base,
    ...kind,
    revision: c.revision,
    created_at: new Date(c.created_at).toISOString(),
    updated_at: new Date(c.updated_at).toISOString(),
  };
};

/**
 * Notification channels (document 4 §13): the same rights, locking and audit as rules
 * (`notification_channel.*`, never a secret in the audit params); secrets sealed by the plane's
 * secret box, bound to row and field. A channel a rule still sends to cannot be deleted (409
 * still_referenced). `test` sends one message now and answers its delivery.
 */
export class ChannelsService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly box: SecretBox,
    private readonly cache: RulesCache,
    private readonly dispatcher: Dispatcher,
    private readonly allowPrivateTargets: boolean,
  ) {}

  async list(p: Principal, q: ListArgs) {
    requireAdmin(p);
    const orgId = readScope(p, q.org);
    const limit = q.limit ?? DEFAULT_LIMIT;
    const rows = await channelsStore.list(this.db, { orgId, after: q.after?.toLowerCase() ?? null, limit });
    return pageOf(rows, limit, channelJson);
  }

  private async find(p: Principal, id: string, db: Db = this.db, lock = false): Promise<ChannelRow> {
    const c = isUuid(id) ? await channelsStore.get(db, id.toLowerCase(), lock) : undefined;
    const scope = recordScope(p);
    if (!c || (scope !== null && c.org_id !== scope)) throw errors.notFound();
    return c;
  }

  async get(p: Principal, id: string) {
    requireAdmin(p);
    return channelJson(await this.find(p, id));
  }

  async create(p: Principal, body: ChannelInput & { org_id?: string | null }) {
    requireAdmin(p);
    const orgId = writeScope(p, body.org_id);
    const name = checkName(body.name);
    const kind = checkKind(body.kind);
    const enabled = body.enabled === undefined ? true : checkBool(body.enabled);
    const { config, secret } = checkSettings(kind, body, this.allowPrivateTargets);
    const id = uuidv7();
    const row = await uniqueName(
      this.db.transaction().execute(async (trx) => {
        await channelsStore.insert(trx, {
          id,
          org_id: orgId,
          name,
          kind,
          enabled,
          config,
          secret_enc: secret ? this.box.seal(secret, secretContext(id, kind)) : null,
          at: new Date(this.clock.now()),
        });
        const c = (await channelsStore.get(trx, id))!;
        await this.record(trx, p, 'notification_channel.create', c, { kind, enabled });
        await this.cache.changed(trx, orgId);
        return c;
      }),
    );
    return channelJson(row);
  }

  async update(p: Principal, id: string, body: ChannelInput & { revision: number }) {
    requireAdmin(p);
    const row = await uniqueName(
      this.db.transaction().execute(async (trx) => {
        const before = await this.find(p, id, trx, true);
        if (before.revision !== body.revision) throw errors.conflict('stale_revision');
        if (body.kind !== undefined && checkKind(body.kind) !== before.kind)
          throw errors.badRequest('bad_channel_kind');
        const set: Partial<ChannelFields> = {};
        if (body.name !== undefined) set.name = checkName(body.name);
        if (body.enabled !== undefined) set.enabled = checkBool(body.enabled);
        const { config, secret } = checkSettings(before.kind, body, this.allowPrivateTargets, {
          config: before.config,
          hasSecret: before.secret_enc !== null,
        });
        set.config = config;
        if (secret !== undefined)
          set.secret_enc = secret === null ? null : this.box.seal(secret, secretContext(before.id, before.kind));
        await channelsStore.update(trx, before.id, set, new Date(this.clock.now()));
        const c = (await channelsStore.get(trx, before.id))!;
        // The names of what changed; a secret's value never.
        const changed = Object.keys(body).filter(
          (k) => k !== 'revision' && (body as Record<string, unknown>)[k] !== undefined,
        );
        await this.record(trx, p, 'notification_channel.update', c, { changed: changed.sort(), revision: c.revision });
        await this.cache.changed(trx, c.org_id);
        return c;
      }),
    );
    return channelJson(row);
  }

  async delete(p: Principal, id: string) {
    requireAdmin(p);
    return this.db.transaction().execute(async (trx) => {
      const c = await this.find(p, id, trx, true);
      if (await rulesStore.usingChannel(trx, c.id)) throw errors.stillReferenced();
      await deliveriesStore.dropOfChannel(trx, c.id);
      await channelsStore.delete(trx, c.id);
      await this.record(trx, p, 'notification_channel.delete', c, {});
      await this.cache.changed(trx, c.org_id);
      return { id: c.id, deleted: true as const };
    });
  }

  /** One test message through the channel now (enabled or not); its delivery as it ended. */
  async test(p: Principal, id: string) {
    requireAdmin(p);
    const c = await this.find(p, id);
    return deliveryJson(await this.dispatcher.test(c));
  }

  private record(trx: Db, p: Principal, action: string, c: ChannelRow, params: Record<string, unknown>) {
    return this.audit.record(trx, {
      actor: actorOf(p),
      orgId: c.org_id,
      action,
      objectType: 'notification_channel',
      objectId: c.id,
      objectName: c.name,
      params,
    });
  }
}
