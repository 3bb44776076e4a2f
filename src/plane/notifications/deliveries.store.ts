import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export type DeliveryState = 'pending' | 'sent' | 'failed' | 'dead';

export interface DeliveryRow {
  id: string;
  dedupe_key: string;
  event_id: string | null;
  rule_id: string | null;
  channel_id: string;
  org_id: string;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  next_attempt_at: Date;
  sent_at: Date | null;
  created_at: Date;
  deadline_at: Date;
}

/** A claimed delivery with what its message says. */
export interface ClaimedDelivery extends DeliveryRow {
  rule_name: string | null;
  event: Record<string, unknown>;
}

export interface NewDelivery {
  id: string;
  dedupe_key: string;
  event_id: string | null;
  rule_id: string | null;
  channel_id: string;
  org_id: string;
  rule_name: string | null;
  event: string;
}

const SELECT =
  sql.raw(`d.id, d.dedupe_key, d.event_id, d.rule_id, d.channel_id, d.org_id, d.state, d.attempts, d.last_error,
  d.next_attempt_at, d.sent_at, d.created_at, d.deadline_at`);

/** The only SQL of deliveries (the outbox). */
export const deliveriesStore = {
  /**
   * Writes deliveries due at `at` (one statement); a dedupe_key already there is left as it is,
   * so a write that is repeated records each delivery once. Returns how many were new.
   */
  async insert(db: Db, rows: NewDelivery[], at: Date, deadline: Date): Promise<number> {
    if (!rows.length) return 0;
    const col = <K extends keyof NewDelivery>(k: K) => rows.map((r) => r[k]);
    const r = await sql`insert into notification_deliveries
        (id, dedupe_key, event_id, rule_id, channel_id, org_id, rule_name, event, next_attempt_at, created_at, deadline_at)
      select x.id, x.dedupe_key, x.event_id, x.rule_id, x.channel_id, x.org_id, x.rule_name, x.event, ${at}, ${at}, ${deadline}
      from unnest(${col('id')}::uuid[], ${col('dedupe_key')}::text[], ${col('event_id')}::uuid[], ${col('rule_id')}::uuid[],
        ${col('channel_id')}::uuid[], ${col('org_id')}::uuid[], ${col('rule_name')}::text[], ${col('event')}::jsonb[])
        as x(id, dedupe_key, event_id, rule_id, channel_id, org_id, rule_name, event)
      on conflict (dedupe_key) do nothing`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },

  async list(
    db: Db,
    q: {
      orgId: string | null;
      after: string | null;
      limit: number;
      rule_id?: string;
      channel_id?: string;
      event_id?: string;
      state?: string;
      /** newest first: ids (UUIDv7, time-ordered) descending, `after` the last id of the page before */
      newest?: boolean;
    },
  ): Promise<DeliveryRow[]> {
    const after = q.after === null ? sql`true` : q.newest ? sql`d.id < ${q.after}::uuid` : sql`d.id > ${q.after}::uuid`;
    const r = await sql<DeliveryRow>`select ${SELECT} from notification_deliveries d
      where (${q.orgId}::uuid is null or d.org_id = ${q.orgId}::uuid) and ${after}
        and (${q.rule_id ?? null}::uuid is null or d.rule_id = ${q.rule_id ?? null}::uuid)
        and (${q.channel_id ?? null}::uuid is null or d.channel_id = ${q.channel_id ?? null}::uuid)
        and (${q.event_id ?? null}::uuid is null or d.event_id = ${q.event_id ?? null}::uuid)
        and (${q.state ?? null}::text is null or d.state = ${q.state ?? null}::text)
      order by d.id ${sql.raw(q.newest ? 'desc' : 'asc')} limit ${q.limit + 1}`.execute(db);
    return r.rows;
  },

  async get(db: Db, id: string, lock = false): Promise<DeliveryRow | undefined> {
    const r = await sql<DeliveryRow>`select ${SELECT} from notification_deliveries d where d.id = ${id}::uuid
      ${sql.raw(lock ? 'for update' : '')}`.execute(db);
    return r.rows[0];
  },

  /** A dead delivery due again at once, with a new 24 h window. */
  async requeue(db: Db, id: string, at: Date, deadline: Date): Promise<DeliveryRow> {
    const r = await sql<DeliveryRow>`update notification_deliveries d
      set state = 'pending', next_attempt_at = ${at}, deadline_at = ${deadline}
      where d.id = ${id}::uuid returning ${SELECT}`.execute(db);
    return r.rows[0]!;
  },

  /**
   * Claims due deliveries of enabled channels, at most `perChannel` of a channel and `limit` in
   * all, oldest due first, skipping rows another process is claiming (FOR UPDATE SKIP LOCKED).
   * A claim counts an attempt and leases the row until `leaseUntil`: a process that dies while
   * sending leaves it to be claimed again then (at least once).
   */
  async claim(
    db: Db,
    q: { now: Date; leaseUntil: Date; perChannel: number; limit: number; skipChannels: string[] },
  ): Promise<ClaimedDelivery[]> {
    const r = await sql<ClaimedDelivery>`
      with due as (
        select id from (
          select d.id, row_number() over (partition by d.channel_id order by d.next_attempt_at, d.id) as n
          from notification_deliveries d join notification_channels c on c.id = d.channel_id and c.enabled
          where d.state in ('pending', 'failed') and d.next_attempt_at <= ${q.now}
            and d.channel_id <> all(${q.skipChannels}::uuid[])
        ) x where x.n <= ${q.perChannel} limit ${q.limit}
      ),
      mine as (
        select d.id from notification_deliveries d join due on due.id = d.id
        where d.state in ('pending', 'failed') and d.next_attempt_at <= ${q.now}
        for update of d skip locked
      )
      update notification_deliveries d set attempts = d.attempts + 1, next_attempt_at = ${q.leaseUntil}
      from mine where d.id = mine.id
      returning ${SELECT}, d.rule_name, d.event`.execute(db);
    return r.rows;
  },

  /** One delivery claimed by its id (a test message, sent at once). */
  async claimOne(db: Db, id: string, leaseUntil: Date): Promise<ClaimedDelivery> {
    const r =
      await sql<ClaimedDelivery>`update notification_deliveries d set attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}
      where d.id = ${id}::uuid returning ${SELECT}, d.rule_name, d.event`.execute(db);
    return r.rows[0]!;
  },

  async markSent(db: Db, id: string, at: Date): Promise<void> {
    await sql`update notification_deliveries set state = 'sent', sent_at = ${at}, last_error = null
      where id = ${id}::uuid`.execute(db);
  },

  /** A failed attempt: tried again at `next`, or dead when `next` is null. */
  async markFailed(db: Db, id: string, error: string, next: Date | null): Promise<void> {
    await sql`update notification_deliveries
      set state = ${next === null ? 'dead' : 'failed'}, last_error = ${error.slice(0, 1024)},
        next_attempt_at = coalesce(${next}, next_attempt_at)
      where id = ${id}::uuid`.execute(db);
  },

  async dropUnsentOfRule(db: Db, ruleId: string): Promise<void> {
    await sql`delete from notification_deliveries where rule_id = ${ruleId}::uuid and state in ('pending', 'failed')`.execute(
      db,
    );
  },

  async dropOfChannel(db: Db, channelId: string): Promise<void> {
    await sql`delete from notification_deliveries where channel_id = ${channelId}::uuid`.execute(db);
  },

  /** When the next delivery falls due (null: none waiting), for the worker's sleep. */
  async nextDue(db: Db): Promise<Date | null> {
    const r = await sql<{ at: Date | null }>`select min(next_attempt_at) as at from notification_deliveries
      where state in ('pending', 'failed')`.execute(db);
    return r.rows[0]?.at ?? null;
  },
};
