import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { CooldownState } from './match.js';

/** One event write's planned deliveries: the n-th is (event_ids[n], rule_ids[n], channel_ids[n]). */
export interface OutboxPlan {
  org_id: string;
  created_at: Date;
  event_ids: string[];
  rule_ids: string[];
  channel_ids: string[];
  rule_names: Record<string, string>;
  frames: Record<string, unknown>;
}

export interface CooldownKey {
  rule_id: string;
  camera_key: string;
}

/** The SQL of the outbox (notification_outbox) and its cooldown state (notification_cooldowns). */
export const outboxStore = {
  /**
   * Makes and locks the cooldown rows of these keys until commit, and reads their state. One
   * statement: an insert that finds the row locks it (ON CONFLICT DO UPDATE) and returns it as
   * it was. Keys are taken in sorted order, so two writers never deadlock on them.
   */
  async lockCooldowns(trx: Db, keys: CooldownKey[]): Promise<Map<string, CooldownState>> {
    const sorted = [...keys].sort((a, b) =>
      a.rule_id === b.rule_id ? (a.camera_key < b.camera_key ? -1 : 1) : a.rule_id < b.rule_id ? -1 : 1,
    );
    const r = await sql<{
      rule_id: string;
      camera_key: string;
      last_sent_at: Date | null;
      suppressed: string | number;
    }>`
      insert into notification_cooldowns (rule_id, camera_key)
      select k.rule_id, k.camera_key
      from unnest(${sorted.map((k) => k.rule_id)}::uuid[], ${sorted.map((k) => k.camera_key)}::uuid[]) with ordinality as k(rule_id, camera_key, n)
      order by k.n
      on conflict (rule_id, camera_key) do update set last_sent_at = notification_cooldowns.last_sent_at
      returning rule_id::text, camera_key::text, last_sent_at, suppressed`.execute(trx);
    return new Map(
      r.rows.map((x) => [
        `${x.rule_id}/${x.camera_key}`,
        {
          last_sent_at: x.last_sent_at === null ? null : new Date(x.last_sent_at).getTime(),
          suppressed: Number(x.suppressed),
        },
      ]),
    );
  },

  async writeCooldowns(trx: Db, states: Map<string, CooldownState>): Promise<void> {
    if (!states.size) return;
    const keys = [...states.keys()];
    const at = keys.map((k) => {
      const t = states.get(k)!.last_sent_at;
      return t === null ? null : new Date(t).toISOString();
    });
    await sql`update notification_cooldowns c set last_sent_at = x.last_sent_at, suppressed = x.suppressed
      from unnest(${keys.map((k) => k.split('/')[0]!)}::uuid[], ${keys.map((k) => k.split('/')[1]!)}::uuid[],
        ${at}::timestamptz[], ${keys.map((k) => states.get(k)!.suppressed)}::int8[]) as x(rule_id, camera_key, last_sent_at, suppressed)
      where c.rule_id = x.rule_id and c.camera_key = x.camera_key`.execute(trx);
  },

  /** Inside the event write's transaction: its planned deliveries, one row whatever their number. */
  async insertPlan(trx: Db, p: Omit<OutboxPlan, 'rule_names' | 'frames'> & { rule_names: string; frames: string }) {
    await sql`insert into notification_outbox (org_id, created_at, event_ids, rule_ids, channel_ids, rule_names, frames)
      values (${p.org_id}::uuid, ${p.created_at}, ${p.event_ids}::uuid[], ${p.rule_ids}::uuid[], ${p.channel_ids}::uuid[],
        ${p.rule_names}::jsonb, ${p.frames}::jsonb)`.execute(trx);
  },

  /**
   * Takes the oldest plans (of one organisation, or of all) for this transaction, skipping those
   * another process is taking, and deletes them: they commit as delivery rows or come back.
   */
  async takePlans(trx: Db, orgId: string | null, limit: number): Promise<OutboxPlan[]> {
    const r = await sql<OutboxPlan>`delete from notification_outbox o where o.id in (
        select id from notification_outbox where (${orgId}::uuid is null or org_id = ${orgId}::uuid)
        order by id limit ${limit} for update skip locked)
      returning o.org_id::text, o.created_at, o.event_ids::text[], o.rule_ids::text[], o.channel_ids::text[],
        o.rule_names, o.frames`.execute(trx);
    return r.rows;
  },

  /** Whether plans wait (of one organisation, or of all). */
  async waiting(db: Db, orgId: string | null): Promise<boolean> {
    const r = await sql<{ n: number }>`select count(*)::int as n from (select 1 from notification_outbox
      where (${orgId}::uuid is null or org_id = ${orgId}::uuid) limit 1) x`.execute(db);
    return (r.rows[0]?.n ?? 0) > 0;
  },
};
