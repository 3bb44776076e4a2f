import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

// Salt of the advisory locks on coalescing keys (two batches repeating one key take turns).
const COALESCE_LOCK_SALT = 724_201_004;

export interface OpenCoalesced {
  id: string;
  occurred_at: Date;
  last_seen_at: Date;
  close_by: Date | null;
  coalesce_key: string;
}

/** The SQL of coalescing repeats into open intervals and of closing intervals at their time-out. */
export const coalesceStore = {
  /**
   * Locks the keys (to commit; in hash order, so batches never deadlock) and returns the open
   * coalesced intervals of the organisation under those keys, newest repeat first.
   */
  async lockOpen(trx: Db, orgId: string, keys: string[]): Promise<OpenCoalesced[]> {
    if (!keys.length) return [];
    await sql`select pg_advisory_xact_lock(h) from (select distinct hashtextextended(k, ${COALESCE_LOCK_SALT}) as h
      from unnest(${keys}::text[]) k order by 1) s`.execute(trx);
    const r = await sql<OpenCoalesced>`select id, occurred_at, last_seen_at, close_by, coalesce_key from events
      where org_id = ${orgId} and coalesce_key = any(${keys}::text[]) and ended_at is null
      order by last_seen_at desc`.execute(trx);
    return r.rows;
  },

  /** A repeat extends an open interval: its last repeat and the time the plane will close it move on. */
  async extend(
    trx: Db,
    rows: Array<{ id: string; occurred_at: Date; last_seen_at: Date; close_by: Date }>,
  ): Promise<void> {
    if (!rows.length) return;
    await sql`update events e set last_seen_at = x.ls, close_by = x.cb
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.occurred_at.toISOString())}::timestamptz[],
                  ${rows.map((r) => r.last_seen_at.toISOString())}::timestamptz[], ${rows.map((r) => r.close_by.toISOString())}::timestamptz[]) as x(id, occ, ls, cb)
      where e.occurred_at = x.occ and e.id = x.id`.execute(trx);
  },

  /** Points retried ext_ids of coalesced repeats at the interval they joined. */
  async repointExtIds(
    trx: Db,
    tokenId: string,
    rows: Array<{ ext_id: string; event_id: string; occurred_at: Date }>,
  ): Promise<void> {
    if (!rows.length) return;
    await sql`update event_ext_ids x set event_id = u.event_id, occurred_at = u.occ
      from unnest(${rows.map((r) => r.ext_id)}::text[], ${rows.map((r) => r.event_id)}::uuid[], ${rows.map((r) => r.occurred_at.toISOString())}::timestamptz[]) as u(ext_id, event_id, occ)
      where x.token_id = ${tokenId}::uuid and x.ext_id = u.ext_id`.execute(trx);
  },

  /**
   * Closes up to `limit` open intervals whose close_by has passed: a coalesced one ends at its
   * last repeat, one that timed out at occurred_at + the time-out (= close_by). Each draws a new
   * stream position for its `updated` frame. Call eventsStore.beginWrite first.
   */
  async closeDue(trx: Db, now: Date, limit: number): Promise<Array<{ id: string; occurred_at: Date; seq: number }>> {
    const r = await sql<{ id: string; occurred_at: Date; seq: number }>`
      with due as (
        select occurred_at, id from events where close_by <= ${now} and ended_at is null and "interval"
        order by close_by limit ${limit} for update skip locked
      )
      update events e set ended_at = least(e.close_by, coalesce(e.last_seen_at, e.close_by)), seq = nextval('event_seq'), changed = true
      from due where e.occurred_at = due.occurred_at and e.id = due.id
      returning e.id, e.occurred_at, e.seq`.execute(trx);
    return r.rows.map((x) => ({ ...x, seq: Number(x.seq) }));
  },
};
