import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { frameJson, type EventFrame } from './events.frames.js';

/** A deleted event with the names its tombstone carries. */
export interface DeletedEvent {
  id: string;
  occurred_at: Date;
  ended_at: Date | null;
  org_id: string;
  camera_id: string | null;
  camera_name: string | null;
  node_id: string | null;
  node_name: string | null;
  detector: string;
  detector_title: unknown;
  category: string;
  severity: number | null;
  template_id: string | null;
  interval: boolean;
  confidence: number | null;
  subject_type: string | null;
  subject_ref: string | null;
  ext_id: string | null;
  list_values: unknown[];
  starred: boolean;
  token_id: string | null;
}

/** The SQL that removes events and keeps their tombstones (purges, archive cleanups, pruning): only the event log calls it. */
export const removalStore = {
  /** Deletes the events of these keys (locked by the caller's selection); returns them with their names. */
  async deleteByKeys(trx: Db, keys: Array<{ id: string; occurred_at: Date }>): Promise<DeletedEvent[]> {
    if (!keys.length) return [];
    const r = await sql<DeletedEvent>`with gone as (delete from events d
        using unnest(${keys.map((k) => k.occurred_at.toISOString())}::timestamptz[], ${keys.map((k) => k.id)}::uuid[]) as v(occurred_at, id)
        where d.occurred_at = v.occurred_at and d.id = v.id
        returning d.id, d.occurred_at, d.ended_at, d.org_id, d.camera_id, d.node_id, d.detector, d.detector_title,
          d.category, d.severity, d.template_id, d."interval", d.confidence, d.subject_type, d.subject_ref, d.ext_id,
          d.list_values, d.starred, d.token_id)
      select g.id, g.occurred_at, g.ended_at, g.org_id, g.camera_id, c.name as camera_name, g.node_id, n.name as node_name, g.detector,
        g.detector_title, g.category, g.severity, g.template_id, g."interval", g.confidence, g.subject_type, g.subject_ref, g.ext_id,
        g.list_values, g.starred, g.token_id
      from gone g left join cameras c on c.id = g.camera_id left join nodes n on n.id = g.node_id
      order by g.occurred_at, g.id`.execute(trx);
    return r.rows;
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

  /**
   * The frames travel as one JSON array, each frame's JSON the one its notice sends (frameJson,
   * made once): a jsonb[] parameter had every frame escaped again as an array element, most of
   * the plane's time in an archive cleanup of many rows (issue 26).
   */
  async insertTombstones(trx: Db, frames: EventFrame[], at: Date): Promise<void> {
    if (!frames.length) return;
    await sql`insert into event_tombstones (seq, id, occurred_at, org_id, camera_id, frame, deleted_at)
      select (f->>'seq')::int8, (f->>'id')::uuid, (f->>'occurred_at')::timestamptz, (f->>'org_id')::uuid,
        (f->>'camera_id')::uuid, f, ${at}
      from jsonb_array_elements(${`[${frames.map(frameJson).join(',')}]`}::jsonb) as f`.execute(trx);
  },

  /** Sets the purge day that `d<purge-day>:<n>` cursors name. */
  async setPurgeDay(trx: Db, day: string): Promise<{ changed: boolean }> {
    const r = await sql<{
      n: number;
    }>`update event_stream set purge_day = ${day}::date where purge_day is distinct from ${day}::date returning 1 as n`.execute(
      trx,
    );
    return { changed: r.rows.length > 0 };
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
        select seq from event_tombstones where seq < ${belowSeq} and deleted_at < ${before} order by seq limit ${limit})`.execute(
      db,
    );
    return Number(r.numAffectedRows ?? 0);
  },
};
