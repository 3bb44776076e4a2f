import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/**
 * The only SQL of the sweeper: its lease (one row: which process sweeps), the evidence pressure level (one row, moved by a conditional
 * UPDATE ... RETURNING under its lock, so of several plane processes exactly one sees a
 * crossing). The observed state of nodes and cameras is written by their own stores, through
 * the nodes and cameras services.
 */
export const sweeperStore = {
  /**
   * Takes or renews the sweeper's lease for `holder` until `now + ttlMs`: true when `holder`
   * holds it (it held it, or the previous holder's lease ran out). One statement: of several
   * processes racing for a free lease exactly one row update wins.
   */
  async takeLease(db: Db, holder: string, now: Date, ttlMs: number): Promise<boolean> {
    const until = new Date(now.getTime() + ttlMs);
    const r = await sql<{
      holder: string;
    }>`insert into sweeper_lease (id, holder, expires_at) values (1, ${holder}, ${until})
      on conflict (id) do update set holder = excluded.holder, expires_at = excluded.expires_at
      where sweeper_lease.holder = excluded.holder or sweeper_lease.expires_at <= ${now}
      returning holder`.execute(db);
    return r.rows[0]?.holder === holder;
  },

  /** Gives the lease up (a process stopping): another takes it at its next sweep. */
  async releaseLease(db: Db, holder: string): Promise<void> {
    await sql`delete from sweeper_lease where id = 1 and holder = ${holder}`.execute(db);
  },

  /** Moves the pressure level; returns the level it moved from, or undefined when it did not change. */
  async moveLevel(trx: Db, level: number, usedPercent: number, at: Date): Promise<number | undefined> {
    const r = await sql<{ was: number }>`with old as (select level from evidence_pressure where id = 1 for update)
      update evidence_pressure p set level = ${level}, used_percent = ${usedPercent}, measured_at = ${at}
      from old where p.id = 1 and old.level <> ${level} returning old.level as was`.execute(trx);
    return r.rows[0] ? Number(r.rows[0].was) : undefined;
  },
};
