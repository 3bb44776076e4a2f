import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { arrayLiteral } from '../db/array-literal.js';
import type { CooldownState } from './match.js';
import type { EncodedPlan } from './outbox.plan.js';

/** A stored plan as the workers take it. */
export interface OutboxPlan extends EncodedPlan {
  org_id: string;
  created_at: Date;
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
  async insertPlan(trx: Db, orgId: string, at: Date, p: EncodedPlan): Promise<void> {
    await sql`insert into notification_outbox (org_id, created_at, pairs, sets, event_ids, event_sets)
      values (${orgId}::uuid, ${at}, ${JSON.stringify(p.pairs)}::jsonb, ${JSON.stringify(p.sets)}::jsonb,
        ${p.event_ids}::uuid[], ${p.event_sets}::int2[])`.execute(trx);
  },

  /**
   * The same as a part of intake's one statement, planned before it ran: only the events the
   * statement inserted (its `ins`) are kept, and no row is written when it inserted none of them.
   */
  planAlongside(orgId: string, at: Date, p: EncodedPlan): RawBuilder<unknown> {
    return sql`insert into notification_outbox (org_id, created_at, pairs, sets, event_ids, event_sets)
      select ${orgId}::uuid, ${at}, ${JSON.stringify(p.pairs)}::jsonb, ${JSON.stringify(p.sets)}::jsonb,
        array_agg(x.e order by x.n), array_agg(x.s order by x.n)
      from unnest(${arrayLiteral(p.event_ids, false)}::uuid[], ${arrayLiteral(p.event_sets, false)}::int2[]) with ordinality as x(e, s, n)
      where x.e in (select id from ins)
      having count(*) > 0`;
  },

  /**
   * Takes the oldest plans (of one organisation, or of all) for this transaction, skipping those
   * another process is taking, and deletes them: they commit as delivery rows or come back.
   */
  async takePlans(trx: Db, orgId: string | null, limit: number): Promise<OutboxPlan[]> {
    const r = await sql<OutboxPlan>`delete from notification_outbox o where o.id in (
        select id from notification_outbox where (${orgId}::uuid is null or org_id = ${orgId}::uuid)
        order by id limit ${limit} for update skip locked)
      returning o.org_id::text, o.created_at, o.pairs, o.sets, o.event_ids::text[], o.event_sets`.execute(trx);
    return r.rows;
  },
};
