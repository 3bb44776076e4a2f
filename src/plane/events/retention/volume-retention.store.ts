import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CleanupJobRow } from './purge.store.js';

/** The day a retention job removes: [from, to) in UTC. */
export interface RetentionSpec {
  day: string;
  from: string;
  to: string;
}

/** The SQL of volume-retention cleanup jobs (kind `retention`); progress and finish are purgeStore's. */
export const volumeRetentionStore = {
  /** The first UTC day that still has events, or null. */
  async oldestDay(db: Db): Promise<string | null> {
    const r = await sql<{ at: Date | null }>`select min(occurred_at) as at from events`.execute(db);
    const at = r.rows[0]?.at;
    return at ? new Date(at).toISOString().slice(0, 10) : null;
  },

  /**
   * Serialises the creation of retention jobs between plane processes (a transaction-scoped
   * advisory lock), then tells whether one is queued already.
   */
  async lockAndFindQueued(trx: Db): Promise<string | null> {
    await sql`select pg_advisory_xact_lock(hashtext('argus.volume_retention'))`.execute(trx);
    const r = await sql<{
      id: string;
    }>`select id from cleanup_jobs where kind = 'retention' and state = 'queued' order by created_at limit 1`.execute(
      trx,
    );
    return r.rows[0]?.id ?? null;
  },

  async insertJob(
    db: Db,
    j: { id: string; spec: RetentionSpec; preview: object; created_at: Date },
  ): Promise<CleanupJobRow> {
    const r =
      await sql<CleanupJobRow>`insert into cleanup_jobs (id, kind, org_id, state, spec, preview, created_by, created_at)
      values (${j.id}, 'retention', null, 'queued', ${JSON.stringify(j.spec)}::jsonb, ${JSON.stringify(j.preview)}::jsonb, null, ${j.created_at})
      returning *`.execute(db);
    return r.rows[0]!;
  },

  /** What removing the day takes: every event of it (every severity) and their attachments. */
  async preview(db: Db, s: RetentionSpec): Promise<{ events: number; attachments: number; attachment_bytes: number }> {
    const r = await sql<{ events: string; attachments: string; bytes: string }>`
      with sel as (select e.occurred_at, e.id from events e where e.occurred_at >= ${s.from}::timestamptz and e.occurred_at < ${s.to}::timestamptz)
      select (select count(*) from sel)::int8 as events, count(a.ref)::int8 as attachments, coalesce(sum(a.size), 0)::int8 as bytes
      from sel join attachments a on a.event_id = sel.id and a.event_occurred_at = sel.occurred_at`.execute(db);
    const row = r.rows[0];
    return {
      events: Number(row?.events ?? 0),
      attachments: Number(row?.attachments ?? 0),
      attachment_bytes: Number(row?.bytes ?? 0),
    };
  },

  async queuedJobIds(db: Db): Promise<string[]> {
    const r = await sql<{
      id: string;
    }>`select id from cleanup_jobs where state = 'queued' and kind = 'retention' order by created_at`.execute(db);
    return r.rows.map((x) => x.id);
  },

  /** Up to `limit` events of the day, locked for this batch (another process's locked rows are skipped). */
  async lockDayBatch(trx: Db, s: RetentionSpec, limit: number): Promise<Array<{ id: string; occurred_at: Date }>> {
    const r = await sql<{ id: string; occurred_at: Date }>`select e.occurred_at, e.id from events e
      where e.occurred_at >= ${s.from}::timestamptz and e.occurred_at < ${s.to}::timestamptz
      order by e.occurred_at, e.id limit ${limit} for update skip locked`.execute(trx);
    return r.rows;
  },

  /** Whether a retention job finished since `since` (the purge episode goes on down to the low watermark). */
  async finishedSince(db: Db, since: Date): Promise<boolean> {
    const r = await sql<{
      n: number;
    }>`select 1 as n from cleanup_jobs where kind = 'retention' and state = 'finished' and finished_at >= ${since} limit 1`.execute(
      db,
    );
    return r.rows.length > 0;
  },
};
