import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';

export const LOGIN_THROTTLE_TABLE = 'login_throttle';

/**
 * The client RateLimiterPostgres talks to, over the plane's own database (a server or the
 * embedded one alike): it sends `{text, values}` and reads `rows` and `rowCount`. The library's
 * statement names are dropped; the pool prepares every statement by its text anyway.
 */
export function throttleClient(db: Db) {
  return {
    async query(q: {
      text: string;
      values?: unknown[];
    }): Promise<{ rows: Array<{ points: number; expire: number | null }>; rowCount: number }> {
      const r = await db.executeQuery<{ points: number | string; expire: number | string | bigint | null }>(
        CompiledQuery.raw(q.text, q.values ?? []),
      );
      const rows = r.rows.map((x) => ({
        points: Number(x.points),
        expire: x.expire === null ? null : Number(x.expire),
      }));
      return { rows, rowCount: r.numAffectedRows !== undefined ? Number(r.numAffectedRows) : rows.length };
    },
  };
}

export const loginThrottleStore = {
  /** Counters whose window ended before `before` (epoch ms); returns how many went. */
  async pruneExpired(db: Db, before: number, limit: number): Promise<number> {
    const r = await db.executeQuery(
      CompiledQuery.raw(
        `delete from ${LOGIN_THROTTLE_TABLE} where key in (select key from ${LOGIN_THROTTLE_TABLE} where expire < $1 limit ${Math.trunc(limit)})`,
        [before],
      ),
    );
    return Number(r.numAffectedRows ?? 0);
  },
};
