import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { cameraVisible, type CameraScope } from '../../rights/camera-rights.js';
import type { EventFrame } from '../log/events.frames.js';

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
  id: string; kind: string; org_id: string | null; state: string; spec: PurgeSpec;
  preview: { events: number; attachments: number; attachment_bytes: number };
  deleted_events: number; deleted_attachments: number; created_at: Date; finished_at: Date | null; last_error: string | null;
}

export interface DeletedEvent {
  id: string; occurred_at: Date; ended_at: Date | null; org_id: string; camera_id: string | null; camera_name: string | null;
  node_id: string | null; node_name: string | null; detector: string; detector_title: unknown; category: string; severity: number | null;
  template_id: string | null; interval: boolean; confidence: number | null; subject_type: string | null; subject_ref: string | null;
  ext_id: string | null; list_values: unknown[]; starred: boolean; token_id: string | null;
}

export interface PurgedAttachment { ref: string; org_id: string; camera_id: string | null; storage_key: string; size: number }

const likePrefix = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`) + '%';

/** The selection as SQL over `events e`. Debug rows only by explicit ids or severity_min. */
function selection(s: PurgeSpec): RawBuilder<SqlBool> {
  const parts: RawBuilder<unknown>[] = [sql`e.occurred_at <= ${s.as_of}::timestamptz`];
  if (s.event_ids.length) parts.push(sql`e.id = any(${s.event_ids}::uuid[])`);
  if (s.org_id) parts.push(sql`e.org_id = ${s.org_id}`);
  if (s.from) parts.push(sql`e.occurred_at >= ${s.from}::timestamptz`);
  if (s.to) parts.push(sql`e.occurred_at < ${s.to}::timestamptz`);
  if (s.camera_id) parts.push(sql`e.camera_id = ${s.camera_id}`);
  if (s.detector !== null) parts.push(s.detector.endsWith('*') ? sql`e.detector like ${likePrefix(s.detector.slice(0, -1))}` : sql`e.detector = ${s.detector}`);
  if (s.severity_min !== null) parts.push(sql`e.severity >= ${s.severity_min}`);
  else if (!s.event_ids.length) parts.push(sql`e.severity is distinct from 0`);
  if (s.starred) parts.push(sql`e.starred`);
  if (s.category) parts.push(sql`e.category = ${s.category}`);
  return sql<SqlBool>`${sql.join(parts, sql` and `)}`;
}

async function deleteEventsWhere(trx: Db, where: RawBuilder<SqlBool>, limit: number): Promise<DeletedEvent[]> {
  const r = await sql<DeletedEvent>`with victims as (
      select e.occurred_at, e.id from events e where ${where} order by e.occurred_at, e.id limit ${limit} for update skip locked),
    gone as (delete from events d using victims v where d.occurred_at = v.occurred_at and d.id = v.id returning d.*)
    select g.id, g.occurred_at, g.ended_at, g.org_id, g.camera_id, c.name as camera_name, g.node_id, n.name as node_name, g.detector,
      g.detector_title, g.category, g.severity, g.template_id, g."interval", g.confidence, g.subject_type, g.subject_ref, g.ext_id,
      g.list_values, g.starred, g.token_id
    from gone g left join cameras c on c.id = g.camera_id left join nodes n on n.id = g.node_id`.execute(trx);
  return r.rows;
}

/** The only SQL of purges and cleanup jobs. */
export const purgeStore = {
  async preview(db: Db, s: PurgeSpec): Promise<{ events: number; attachments: number; attachment_bytes: number }> {
    const r = await sql<{ events: number; attachments: number; bytes: number }>`
      with sel as (select e.occurred_at, e.id from events e where ${selection(s)})
      select (select count(*) from sel)::int8 as events,
             count(a.ref)::int8 as attachments, coalesce(sum(a.size), 0)::int8 as bytes
      from sel join attachments a on a.event_id = sel.id and a.event_occurred_at = sel.occurred_at`.execute(db);
    const row = r.rows[0];
    return { events: Number(row?.events ?? 0), attachments: Number(row?.attachments ?? 0), attachment_bytes: Number(row?.bytes ?? 0) };
  },

  async insertJob(db: Db, j: { id: string; org_id: string | null; spec: PurgeSpec; preview: object; created_by: string | null; created_at: Date }): Promise<CleanupJobRow> {
    const r = await sql<CleanupJobRow>`insert into cleanup_jobs (id, kind, org_id, state, spec, preview, created_by, created_at)
      values (${j.id}, 'events', ${j.org_id}, 'queued', ${JSON.stringify(j.spec)}::jsonb, ${JSON.stringify(j.preview)}::jsonb, ${j.created_by}, ${j.created_at})
      returning *`.execute(db);
    return r.rows[0]!;
  },

  async getJob(db: Db, id: string): Promise<CleanupJobRow | undefined> {
    const r = await sql<CleanupJobRow>`select * from cleanup_jobs where id = ${id}`.execute(db);
    return r.rows[0];
  },

  async queuedJobIds(db: Db): Promise<string[]> {
    const r = await sql<{ id: string }>`select id from cleanup_jobs where state = 'queued' and kind = 'events' order by created_at`.execute(db);
    return r.rows.map((x) => x.id);
  },

  /** Locks a queued job for this batch; another process running it makes this null (skip). */
  async lockJob(trx: Db, id: string): Promise<CleanupJobRow | undefined> {
    const r = await sql<CleanupJobRow>`select * from cleanup_jobs where id = ${id} and state = 'queued' for update skip locked`.execute(trx);
    return r.rows[0];
  },

  /** Deletes up to `limit` selected events; returns them with the names their tombstones carry. */
  deleteBatch(trx: Db, s: PurgeSpec, limit: number): Promise<DeletedEvent[]> {
    return deleteEventsWhere(trx, selection(s), limit);
  },

  /** Deletes up to `limit` events of an organisation, every severity (archive cleanup). */
  deleteOrgBatch(trx: Db, orgId: string, limit: number): Promise<DeletedEvent[]> {
    return deleteEventsWhere(trx, sql<SqlBool>`e.org_id = ${orgId}`, limit);
  },

  /** The idempotency keys of deleted events go with them (a retried ext_id then makes a new event). */
  async deleteExtIds(trx: Db, events: DeletedEvent[]): Promise<void> {
    const keyed = events.filter((e) => e.ext_id !== null && e.token_id !== null);
    if (!keyed.length) return;
    await sql`delete from event_ext_ids x using unnest(${keyed.map((e) => e.token_id)}::uuid[], ${keyed.map((e) => e.ext_id)}::text[]) as k(token_id, ext_id)
      where x.token_id = k.token_id and x.ext_id = k.ext_id`.execute(trx);
  },

  /** Stream positions for tombstones (one per deleted event). */
  async drawSeqs(trx: Db, n: number): Promise<number[]> {
    const r = await sql<{ seq: number }>`select nextval('event_seq') as seq from generate_series(1, ${n})`.execute(trx);
    return r.rows.map((x) => Number(x.seq)).sort((a, b) => a - b);
  },

  async insertTombstones(trx: Db, frames: EventFrame[], at: Date): Promise<void> {
    if (!frames.length) return;
    await sql`insert into event_tombstones (seq, id, occurred_at, org_id, camera_id, frame, deleted_at)
      select x.seq, x.id, x.occurred_at, x.org_id, x.camera_id, x.frame, ${at}
      from unnest(${frames.map((f) => f.seq)}::int8[], ${frames.map((f) => f.id)}::uuid[], ${frames.map((f) => f.occurred_at)}::timestamptz[],
        ${frames.map((f) => f.org_id)}::uuid[], ${frames.map((f) => f.camera_id)}::uuid[], ${frames.map((f) => JSON.stringify(f))}::jsonb[])
        as x(seq, id, occurred_at, org_id, camera_id, frame)`.execute(trx);
  },

  /** Sets the purge day that `d<purge-day>:<n>` cursors name; returns it as YYYYMMDD. */
  async setPurgeDay(trx: Db, day: string): Promise<{ changed: boolean }> {
    const r = await sql<{ n: number }>`update event_stream set purge_day = ${day}::date where purge_day is distinct from ${day}::date returning 1 as n`.execute(trx);
    return { changed: r.rows.length > 0 };
  },

  async progress(trx: Db, id: string, events: number, attachments: number): Promise<void> {
    await sql`update cleanup_jobs set deleted_events = deleted_events + ${events}, deleted_attachments = deleted_attachments + ${attachments},
      last_error = null where id = ${id}`.execute(trx);
  },

  async finish(db: Db, id: string, at: Date): Promise<void> {
    await sql`update cleanup_jobs set state = 'finished', finished_at = ${at} where id = ${id} and state = 'queued'`.execute(db);
  },

  async fail(db: Db, id: string, message: string): Promise<void> {
    await sql`update cleanup_jobs set last_error = ${message.slice(0, 1000)} where id = ${id}`.execute(db);
  },

  /** Whether a purge removed this event and the caller would have seen it (410 rather than 404). */
  async wasPurged(db: Db, scope: CameraScope, id: string, occurredAt: Date): Promise<boolean> {
    const r = await sql<{ n: number }>`select 1 as n from event_tombstones t
      where t.occurred_at = ${occurredAt} and t.id = ${id} and ${cameraVisible(scope, 't.camera_id', 't.org_id')} limit 1`.execute(db);
    return r.rows.length > 0;
  },

  /**
   * The lowest stream position among the newest `depth` frames (rows and tombstones alike): what
   * a ring filled from the table now would hold. Null while there are fewer frames than that.
   */
  async replayFloor(db: Db, depth: number): Promise<number | null> {
    const r = await sql<{ seq: number | null; n: number }>`select min(seq) as seq, count(*)::int as n from (
        select seq from (select seq from events order by seq desc limit ${depth}) e
        union all select seq from (select seq from event_tombstones order by seq desc limit ${depth}) t
        order by seq desc limit ${depth}) s`.execute(db);
    const row = r.rows[0]!;
    return row.n < depth || row.seq === null ? null : Number(row.seq);
  },

  /** Deletes up to `limit` tombstones written before `before` and below stream position `belowSeq`, oldest first. */
  async pruneTombstones(db: Db, before: Date, belowSeq: number, limit: number): Promise<number> {
    const r = await sql`delete from event_tombstones where seq in (
        select seq from event_tombstones where seq < ${belowSeq} and deleted_at < ${before} order by seq limit ${limit})`.execute(db);
    return Number(r.numAffectedRows ?? 0);
  },
};
