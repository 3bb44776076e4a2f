import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { CleanupJobRow } from './purge.store.js';

/** The SQL of archive cleanup jobs (kind `archive`); batches, progress and finish are purgeStore's. */
export const archiveStore = {
  /** What the cleanup of an organisation removes: all its events (every severity), all its attachments. */
  async preview(db: Db, orgId: string): Promise<{ events: number; attachments: number; attachment_bytes: number }> {
    const r = await sql<{ events: number; attachments: number; bytes: number }>`
      select (select count(*) from events e where e.org_id = ${orgId})::int8 as events,
             count(a.ref)::int8 as attachments, coalesce(sum(a.size), 0)::int8 as bytes
      from attachments a where a.org_id = ${orgId}`.execute(db);
    const row = r.rows[0];
    return {
      events: Number(row?.events ?? 0),
      attachments: Number(row?.attachments ?? 0),
      attachment_bytes: Number(row?.bytes ?? 0),
    };
  },

  async insertJob(
    db: Db,
    j: { id: string; org_id: string; preview: object; created_by: string | null; created_at: Date },
  ): Promise<CleanupJobRow> {
    const r =
      await sql<CleanupJobRow>`insert into cleanup_jobs (id, kind, org_id, state, spec, preview, created_by, created_at)
      values (${j.id}, 'archive', ${j.org_id}, 'queued', ${JSON.stringify({ org_id: j.org_id })}::jsonb, ${JSON.stringify(j.preview)}::jsonb,
        ${j.created_by}, ${j.created_at})
      returning *`.execute(db);
    return r.rows[0]!;
  },

  async queuedJobIds(db: Db): Promise<string[]> {
    const r = await sql<{
      id: string;
    }>`select id from cleanup_jobs where state = 'queued' and kind = 'archive' order by created_at`.execute(db);
    return r.rows.map((x) => x.id);
  },
};
