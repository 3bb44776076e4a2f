import { sql } from 'kysely';
import type { Db } from '../../db/database.js';

const likePrefix = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`) + '%';
/** Detector ids listed by a matches reply at most (`distinct` still counts them all). */
export const MATCHES_LIST_MAX = 1000;

/**
 * Distinct detector ids of events since `since` that match a template mask (exact, or a prefix
 * with a trailing `*`), of one organisation or all (null). For the templates' matches route.
 */
export async function recentDetectors(
  db: Db,
  orgId: string | null,
  mask: string,
  since: Date,
): Promise<{ detectors: string[]; distinct: number }> {
  const match = mask.endsWith('*') ? sql`e.detector like ${likePrefix(mask.slice(0, -1))}` : sql`e.detector = ${mask}`;
  const org = orgId === null ? sql`true` : sql`e.org_id = ${orgId}`;
  const r = await sql<{ detector: string; n: number }>`select d.detector, count(*) over () as n
    from (select distinct e.detector from events e where e.occurred_at >= ${since} and ${org} and ${match}) d
    order by d.detector limit ${MATCHES_LIST_MAX}`.execute(db);
  return { detectors: r.rows.map((x) => x.detector), distinct: Number(r.rows[0]?.n ?? 0) };
}
