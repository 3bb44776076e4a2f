import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/**
 * The only SQL of the sweeper: the evidence pressure level (one row, moved by a conditional
 * UPDATE ... RETURNING under its lock, so of several plane processes exactly one sees a
 * crossing). The observed state of nodes and cameras is written by their own stores, through
 * the nodes and cameras services.
 */
export const sweeperStore = {
  /**
   * Bytes held in the evidence storage, from the per-organisation accounting (no directory walk).
   * A read of the evidence domain's table that the evidence service does not offer yet.
   */
  async evidenceBytes(db: Db): Promise<number> {
    const r = await sql<{ bytes: string | number }>`select coalesce(sum(bytes), 0) as bytes from org_evidence_usage`.execute(db);
    return Number(r.rows[0]?.bytes ?? 0);
  },

  /** Moves the pressure level; returns the level it moved from, or undefined when it did not change. */
  async moveLevel(trx: Db, level: number, usedPercent: number, at: Date): Promise<number | undefined> {
    const r = await sql<{ was: number }>`with old as (select level from evidence_pressure where id = 1 for update)
      update evidence_pressure p set level = ${level}, used_percent = ${usedPercent}, measured_at = ${at}
      from old where p.id = 1 and old.level <> ${level} returning old.level as was`.execute(trx);
    return r.rows[0] ? Number(r.rows[0].was) : undefined;
  },
};
