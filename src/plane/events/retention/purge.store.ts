import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { cameraVisible, type CameraScope } from '../../rights/camera-rights.js';

/** The normalised purge selection (document 2, purge of history); `as_of` freezes it. */
export interface PurgeSpec {
  event_ids: string[];
  org_id: string | null;
  from: string | null;
  to: string | null;
  camera_id: string | null;
  detector: string | null;
  severity_min: number | null;
  starred: boolean;
  category: 'camera' | 'system' | null;
  as_of: string;
}

export interface CleanupJobRow {
  id: string;
  kind: string;
  org_id: string | null;
  state: string;
  spec: PurgeSpec;
  preview: { events: number; attachments: number; attachment_bytes: number };
  deleted_events: number;
  deleted_attachments: number;
  created_at: Date;
  finished_at: Date | null;
  last_error: string | null;
}

const likePrefix = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`) + '%';

/** The selection as SQL over `events e`. Debug rows only by explicit ids or severity_min. */
function selection(s: PurgeSpec): RawBuilder<SqlBool> {
  const parts: RawBuilder<unknown>[] = [sql`e.occurred_at <= ${s.as_of}::timestamptz`];
  if (s.event_ids.length) parts.push(sql`e.id = any(${s.event_ids}::uuid[])`);
  if (s.org_id) parts.push(sql`e.org_id = ${s.org_id}`);
  if (s.from) parts.push(sql`e.occurred_at >= ${s.from}::timestamptz`);
  if (s.to) parts.push(sql`e.occurred_at < ${s.to}::timestamptz`);
  if (s.camera_id) parts.push(sql`e.camera_id = ${s.camera_id}`);
  if (s.detector !== null)
    parts.push(
      s.detector.endsWith('*')
        ? sql`e.detector like ${likePrefix(s.detector.slice(0, -1))}`
        : sql`e.detector = ${s.detector}`,
    );
  if (s.severity_min !== null) parts.push(sql`e.severity >= ${s.severity_min}`);
  else if (!s.event_ids.length) parts.push(sql`e.severity is distinct from 0`);
  if (s.starred) parts.push(sql`e.starred`);
  if (s.category) parts.push(sql`e.category = ${s.category}`);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

/** Up to `limit` selected events, locked for this batch (another process's locked rows are skipped). */
async function lockBatch(
  trx: Db,
  where: RawBuilder<SqlBool>,
  limit: number,
): Promise<Array<{ id: string; occurred_at: Date }>> {
  const r = await sql<{ id: string; occurred_at: Date }>`select e.occurred_at, e.id from events e where ${where}
    order by e.occurred_at, e.id limit ${limit} for update skip locked`.execute(trx);
  return r.rows;
}

/** The SQL of purge selections and cleanup jobs (the event log removes the rows). */
export const purgeStore = {
  async preview(db: Db, s: PurgeSpec): Promise<{ events: number; attachments: number; attachment_bytes: number }> {
    const r = await sql<{ events: number; attachments: number; bytes: number }>`
      with sel as (select e.occurred_at, e.id from events e where ${selection(s)})
      select (select count(*) from sel)::int8 as events,
             count(a.ref)::int8 as attachments, coalesce(sum(a.size), 0)::int8 as bytes
      from sel join attachments a on a.event_id = sel.id and a.event_occurred_at = sel.occurred_at`.execute(db);
    const row = r.rows[0];
    return {
      events: Number(row?.events ?? 0),
      attachments: Number(row?.attachments ?? 0),
      attachment_bytes: Number(row?.bytes ?? 0),
    };
  },

  async insertJob(
    db: Db,
    j: {
      id: string;
      org_id: string | null;
      spec: PurgeSpec;
      preview: object;
      created_by: string | null;
      created_at: Date;
    },
  ): Promise<CleanupJobRow> {
    const r =
      await sql<CleanupJobRow>`insert into cleanup_jobs (id, kind, org_id, state, spec, preview, created_by, created_at)
      values (${j.id}, 'events', ${j.org_id}, 'queued', ${JSON.stringify(j.spec)}::jsonb, ${JSON.stringify(j.preview)}::jsonb, ${j.created_by}, ${j.created_at})
      returning *`.execute(db);
    return r.rows[0]!;
  },

  async getJob(db: Db, id: string): Promise<CleanupJobRow | undefined> {
    const r = await sql<CleanupJobRow>`select * from cleanup_jobs where id = ${id}`.execute(db);
    return r.rows[0];
  },

  async queuedJobIds(db: Db): Promise<string[]> {
    const r = await sql<{
      id: string;
    }>`select id from cleanup_jobs where state = 'queued' and kind = 'events' order by created_at`.execute(db);
    return r.rows.map((x) => x.id);
  },

  /** Locks a queued job for this batch; another process running it makes this null (skip). */
  async lockJob(trx: Db, id: string): Promise<CleanupJobRow | undefined> {
    const r =
      await sql<CleanupJobRow>`select * from cleanup_jobs where id = ${id} and state = 'queued' for update skip locked`.execute(
        trx,
      );
    return r.rows[0];
  },

  /** Up to `limit` selected events, locked: the batch the event log removes next. */
  lockBatch(trx: Db, s: PurgeSpec, limit: number): Promise<Array<{ id: string; occurred_at: Date }>> {
    return lockBatch(trx, selection(s), limit);
  },

  /** Up to `limit` events of an organisation, every severity (archive cleanup), locked. */
  lockOrgBatch(trx: Db, orgId: string, limit: number): Promise<Array<{ id: string; occurred_at: Date }>> {
    return lockBatch(trx, sql<SqlBool>`e.org_id = ${orgId}`, limit);
  },

  async progress(trx: Db, id: string, events: number, attachments: number): Promise<void> {
    await sql`update cleanup_jobs set deleted_events = deleted_events + ${events}, deleted_attachments = deleted_attachments + ${attachments},
      last_error = null where id = ${id}`.execute(trx);
  },

  async finish(db: Db, id: string, at: Date): Promise<void> {
    await sql`update cleanup_jobs set state = 'finished', finished_at = ${at} where id = ${id} and state = 'queued'`.execute(
      db,
    );
  },

  async fail(db: Db, id: string, message: string): Promise<void> {
    await sql`update cleanup_jobs set last_error = ${message.slice(0, 1000)} where id = ${id}`.execute(db);
  },

  /** Unfinished cleanup jobs (purge, archive, retention) whose last batch failed (settings: failed_jobs). */
  async failedJobs(db: Db): Promise<number> {
    const r = await sql<{
      n: string;
    }>`select count(*) as n from cleanup_jobs where state = 'queued' and last_error is not null`.execute(db);
    return Number(r.rows[0]?.n ?? 0);
  },

  /** Whether a purge removed this event and the caller would have seen it (410 rather than 404). */
  async wasPurged(db: Db, scope: CameraScope, id: string, occurredAt: Date): Promise<boolean> {
    const r = await sql<{ n: number }>`select 1 as n from event_tombstones t
      where t.occurred_at = ${occurredAt} and t.id = ${id} and ${cameraVisible(scope, 't.camera_id', 't.org_id')} limit 1`.execute(
      db,
    );
    return r.rows.length > 0;
  },
};
