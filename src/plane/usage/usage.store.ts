import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** The prepared counters of one organisation (migration 0013), summed over its shards. */
export interface UsageCounters {
  cameras: number;
  users: number;
  tags: number;
  event_templates: number;
  dashboards: number;
  reports: number;
  events: number;
  sessions: number;
}

const COUNTERS = [
  'cameras',
  'users',
  'tags',
  'event_templates',
  'dashboards',
  'reports',
  'events',
  'sessions',
] as const;

/** The only SQL of org_usage_counters; the triggers of 0013 write it, this only reads. */
export const usageStore = {
  async counters(db: Db, orgId: string): Promise<UsageCounters> {
    const row = await db
      .selectFrom('org_usage_counters')
      .select(COUNTERS.map((c) => sql<string>`coalesce(sum(${sql.ref(c)}), 0)`.as(c)))
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return Object.fromEntries(
      COUNTERS.map((c) => [c, Number((row as Record<string, unknown> | undefined)?.[c] ?? 0)]),
    ) as unknown as UsageCounters;
  },

  /** Events of every organisation (the evidence storage's `event_count`). */
  async eventsTotal(db: Db): Promise<number> {
    const r = await sql<{ n: string }>`select coalesce(sum(events), 0) as n from org_usage_counters`.execute(db);
    return Number(r.rows[0]?.n ?? 0);
  },
};
