import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { RuleMatch, Schedule } from './match.js';

export interface RuleRow {
  id: string;
  org_id: string;
  name: string;
  enabled: boolean;
  match: RuleMatch;
  schedule: Schedule | null;
  cooldown_secs: number;
  channel_ids: string[];
  revision: number;
  created_at: Date;
  updated_at: Date;
  /** the sum of its cooldown keys' suppressed events */
  suppressed_count: number;
}
export type RuleFields = Pick<RuleRow, 'name' | 'enabled' | 'match' | 'schedule' | 'cooldown_secs' | 'channel_ids'>;

/** A rule as the outbox applies it: enabled, with the enabled channels among its channel_ids. */
export interface ActiveRule {
  id: string;
  name: string;
  match: RuleMatch;
  schedule: Schedule | null;
  cooldown_secs: number;
  channel_ids: string[];
}

const SELECT = sql`r.id, r.org_id, r.name, r.enabled, r.match, r.schedule, r.cooldown_secs, r.channel_ids::text[] as channel_ids,
  r.revision, r.created_at, r.updated_at,
  (select coalesce(sum(c.suppressed), 0)::int from notification_cooldowns c where c.rule_id = r.id) as suppressed_count`;

const json = (v: unknown) => JSON.stringify(v);

/** The only SQL of notification rules. A change bumps `revision` (optimistic locking). */
export const rulesStore = {
  async list(db: Db, q: { orgId: string | null; after: string | null; limit: number }): Promise<RuleRow[]> {
    const r = await sql<RuleRow>`select ${SELECT} from notification_rules r
      where (${q.orgId}::uuid is null or r.org_id = ${q.orgId}::uuid) and (${q.after}::uuid is null or r.id > ${q.after}::uuid)
      order by r.id limit ${q.limit + 1}`.execute(db);
    return r.rows;
  },

  async get(db: Db, id: string, lock = false): Promise<RuleRow | undefined> {
    const r = await sql<RuleRow>`select ${SELECT} from notification_rules r where r.id = ${id}::uuid
      ${sql.raw(lock ? 'for update' : '')}`.execute(db);
    return r.rows[0];
  },

  async insert(db: Db, row: RuleFields & { id: string; org_id: string; at: Date }): Promise<void> {
    await sql`insert into notification_rules (id, org_id, name, enabled, match, schedule, cooldown_secs, channel_ids, created_at, updated_at)
      values (${row.id}::uuid, ${row.org_id}::uuid, ${row.name}, ${row.enabled}, ${json(row.match)}::jsonb,
        ${row.schedule === null ? null : json(row.schedule)}::jsonb, ${row.cooldown_secs}, ${row.channel_ids}::uuid[], ${row.at}, ${row.at})`.execute(
      db,
    );
  },

  async update(db: Db, id: string, set: Partial<RuleFields>, at: Date): Promise<void> {
    const parts = [sql`updated_at = ${at}`, sql`revision = revision + 1`];
    if (set.name !== undefined) parts.push(sql`name = ${set.name}`);
    if (set.enabled !== undefined) parts.push(sql`enabled = ${set.enabled}`);
    if (set.match !== undefined) parts.push(sql`match = ${json(set.match)}::jsonb`);
    if (set.schedule !== undefined)
      parts.push(sql`schedule = ${set.schedule === null ? null : json(set.schedule)}::jsonb`);
    if (set.cooldown_secs !== undefined) parts.push(sql`cooldown_secs = ${set.cooldown_secs}`);
    if (set.channel_ids !== undefined) parts.push(sql`channel_ids = ${set.channel_ids}::uuid[]`);
    await sql`update notification_rules set ${sql.join(parts)} where id = ${id}::uuid`.execute(db);
  },

  /** The rule and its cooldown state. */
  async delete(db: Db, id: string): Promise<void> {
    await sql`delete from notification_cooldowns where rule_id = ${id}::uuid`.execute(db);
    await sql`delete from notification_rules where id = ${id}::uuid`.execute(db);
  },

  /** Whether a rule of the organisation still sends to the channel (it cannot be deleted then). */
  async usingChannel(db: Db, channelId: string): Promise<boolean> {
    const r = await sql<{ n: number }>`select count(*)::int as n from notification_rules
      where channel_ids @> array[${channelId}::uuid]`.execute(db);
    return (r.rows[0]?.n ?? 0) > 0;
  },

  /** The organisation's enabled rules with their enabled channels (rules left with none are left out). */
  async active(db: Db, orgId: string): Promise<ActiveRule[]> {
    const r = await sql<ActiveRule>`select r.id, r.name, r.match, r.schedule, r.cooldown_secs,
        array(select c.id::text from notification_channels c
              where c.id = any(r.channel_ids) and c.enabled order by array_position(r.channel_ids, c.id)) as channel_ids
      from notification_rules r where r.org_id = ${orgId}::uuid and r.enabled order by r.id`.execute(db);
    return r.rows.filter((x) => x.channel_ids.length > 0);
  },

  /**
   * Which of these rules still exist, held (KEY SHARE) to the caller's commit: a delete waits for
   * it, and its drop of unsent deliveries then sees what the caller wrote.
   */
  async holdExisting(db: Db, ids: string[]): Promise<string[]> {
    if (!ids.length) return [];
    const r = await sql<{ id: string }>`select id::text from notification_rules where id = any(${ids}::uuid[])
      for key share`.execute(db);
    return r.rows.map((x) => x.id);
  },
};
