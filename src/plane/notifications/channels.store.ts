import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export type ChannelKind = 'webhook' | 'email' | 'mqtt';

/** A channel's settings besides its secret, by kind (document 4 §13). */
export interface ChannelConfig {
  url?: string;
  headers?: Record<string, string>;
  to?: string[];
  topic?: string;
  username?: string | null;
  qos?: number;
}

export interface ChannelRow {
  id: string;
  org_id: string;
  name: string;
  kind: ChannelKind;
  enabled: boolean;
  config: ChannelConfig;
  /** the webhook secret or the mqtt password, sealed (crypto/secret-box.ts) */
  secret_enc: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
}
export type ChannelFields = Pick<ChannelRow, 'name' | 'kind' | 'enabled' | 'config' | 'secret_enc'>;

const SELECT = sql.raw(
  'c.id, c.org_id, c.name, c.kind, c.enabled, c.config, c.secret_enc, c.revision, c.created_at, c.updated_at',
);

/** The only SQL of notification channels. A change bumps `revision` (optimistic locking). */
export const channelsStore = {
  async list(db: Db, q: { orgId: string | null; after: string | null; limit: number }): Promise<ChannelRow[]> {
    const r = await sql<ChannelRow>`select ${SELECT} from notification_channels c
      where (${q.orgId}::uuid is null or c.org_id = ${q.orgId}::uuid) and (${q.after}::uuid is null or c.id > ${q.after}::uuid)
      order by c.id limit ${q.limit + 1}`.execute(db);
    return r.rows;
  },

  async get(db: Db, id: string, lock = false): Promise<ChannelRow | undefined> {
    const r = await sql<ChannelRow>`select ${SELECT} from notification_channels c where c.id = ${id}::uuid
      ${sql.raw(lock ? 'for update' : '')}`.execute(db);
    return r.rows[0];
  },

  async byIds(db: Db, ids: string[]): Promise<ChannelRow[]> {
    if (!ids.length) return [];
    const r =
      await sql<ChannelRow>`select ${SELECT} from notification_channels c where c.id = any(${ids}::uuid[])`.execute(db);
    return r.rows;
  },

  /** Which of these channels still exist, held (KEY SHARE) to the caller's commit, as rulesStore.holdExisting. */
  async holdExisting(db: Db, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const r = await sql<{ id: string }>`select id::text from notification_channels where id = any(${ids}::uuid[])
      for key share`.execute(db);
    return r.rows.map((x) => x.id);
  },

  /** How many of `ids` are channels of the organisation (a rule names only its own). */
  async countInOrg(db: Db, orgId: string, ids: string[]): Promise<number> {
    const r = await sql<{ n: number }>`select count(*)::int as n from notification_channels
      where org_id = ${orgId}::uuid and id = any(${ids}::uuid[])`.execute(db);
    return r.rows[0]?.n ?? 0;
  },

  async insert(db: Db, row: ChannelFields & { id: string; org_id: string; at: Date }): Promise<void> {
    await sql`insert into notification_channels (id, org_id, name, kind, enabled, config, secret_enc, created_at, updated_at)
      values (${row.id}::uuid, ${row.org_id}::uuid, ${row.name}, ${row.kind}, ${row.enabled}, ${JSON.stringify(row.config)}::jsonb,
        ${row.secret_enc}, ${row.at}, ${row.at})`.execute(db);
  },

  async update(db: Db, id: string, set: Partial<ChannelFields>, at: Date): Promise<void> {
    const parts = [sql`updated_at = ${at}`, sql`revision = revision + 1`];
    if (set.name !== undefined) parts.push(sql`name = ${set.name}`);
    if (set.enabled !== undefined) parts.push(sql`enabled = ${set.enabled}`);
    if (set.config !== undefined) parts.push(sql`config = ${JSON.stringify(set.config)}::jsonb`);
    if (set.secret_enc !== undefined) parts.push(sql`secret_enc = ${set.secret_enc}`);
    await sql`update notification_channels set ${sql.join(parts)} where id = ${id}::uuid`.execute(db);
  },

  /** A receiver said the channel is gone (a webhook's 410): disabled, its revision moves on. */
  async disable(db: Db, id: string, at: Date): Promise<boolean> {
    const r = await sql`update notification_channels set enabled = false, revision = revision + 1, updated_at = ${at}
      where id = ${id}::uuid and enabled`.execute(db);
    return Number(r.numAffectedRows ?? 0) > 0;
  },

  async delete(db: Db, id: string): Promise<void> {
    await sql`delete from notification_channels where id = ${id}::uuid`.execute(db);
  },
};
