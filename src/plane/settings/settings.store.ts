import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** Any number, the same in every plane process: the advisory lock that serialises settings edits. */
const SETTINGS_LOCK = 0x5e771n;

export const settingsStore = {
  /**
   * Takes the settings lock for the transaction `trx`, waiting at most `waitMs` (PostgreSQL's
   * lock_timeout: past it the statement fails with 55P03, which the service answers 409
   * settings_busy). Held in the database, so plane processes on one database take turns.
   */
  async lock(trx: Db, waitMs: number): Promise<void> {
    await sql`select set_config('lock_timeout', ${`${Math.max(1, Math.round(waitMs))}ms`}, true)`.execute(trx);
    await sql`select pg_advisory_xact_lock(${SETTINGS_LOCK.toString()}::bigint)`.execute(trx);
  },
};
