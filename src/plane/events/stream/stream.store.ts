import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { boundFrame, frameOfRow, type EventFrame } from '../log/events.frames.js';

interface StreamRow {
  seq: number; id: string; occurred_at: Date; ended_at: Date | null; org_id: string; camera_id: string | null; camera_name: string | null;
  node_id: string | null; node_name: string | null; detector: string; detector_title: unknown; category: string; severity: number | null;
  template_id: string | null; interval: boolean; confidence: number | null; subject_type: string | null; subject_ref: string | null;
  ext_id: string | null; list_values: unknown[]; starred: boolean; changed: boolean;
}

// Only the columns of a frame (payload and attachments stay in the table).
const FRAME_COLUMNS = sql`e.seq, e.id, e.occurred_at, e.ended_at, e.org_id, e.camera_id, c.name as camera_name, e.node_id,
  n.name as node_name, e.detector, e.detector_title, e.category, e.severity, e.template_id, e."interval", e.confidence,
  e.subject_type, e.subject_ref, e.ext_id, e.list_values, e.starred, e.changed`;
const FRAME_FROM = sql`events e left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id`;

/** A row read from the table becomes the frame its notice would have carried. */
function frameOf(r: StreamRow): EventFrame {
  return boundFrame(frameOfRow(r, r.changed ? 'full' : 'created'));
}

const bySeq = (a: EventFrame, b: EventFrame) => a.seq - b.seq;

/** The SQL of the live event stream: frames by stream position, rows and tombstones alike. */
export const streamStore = {
  /** Frames with seq in (after, upTo], oldest first, at most `limit` (rows and tombstones). */
  async range(db: Db, after: number, upTo: number, limit: number): Promise<EventFrame[]> {
    const rows = await sql<StreamRow>`select ${FRAME_COLUMNS} from ${FRAME_FROM}
      where e.seq > ${after} and e.seq <= ${upTo} order by e.seq limit ${limit}`.execute(db);
    const tombs = await sql<{ frame: EventFrame }>`select frame from event_tombstones
      where seq > ${after} and seq <= ${upTo} order by seq limit ${limit}`.execute(db);
    return [...rows.rows.map(frameOf), ...tombs.rows.map((t) => t.frame)].sort(bySeq).slice(0, limit);
  },

  /** Frames at exactly these positions (a notice named them without carrying them). */
  async at(db: Db, seqs: number[]): Promise<EventFrame[]> {
    if (!seqs.length) return [];
    const rows = await sql<StreamRow>`select ${FRAME_COLUMNS} from ${FRAME_FROM} where e.seq = any(${seqs}::bigint[])`.execute(db);
    const tombs = await sql<{ frame: EventFrame }>`select frame from event_tombstones where seq = any(${seqs}::bigint[])`.execute(db);
    return [...rows.rows.map(frameOf), ...tombs.rows.map((t) => t.frame)].sort(bySeq);
  },

  /** The newest `limit` frames at or below `upTo`, oldest first (the ring at start). */
  async latest(db: Db, upTo: number, limit: number): Promise<EventFrame[]> {
    const rows = await sql<StreamRow>`select ${FRAME_COLUMNS} from ${FRAME_FROM}
      where e.seq <= ${upTo} order by e.seq desc limit ${limit}`.execute(db);
    const tombs = await sql<{ frame: EventFrame }>`select frame from event_tombstones
      where seq <= ${upTo} order by seq desc limit ${limit}`.execute(db);
    return [...rows.rows.map(frameOf), ...tombs.rows.map((t) => t.frame)].sort(bySeq).slice(-limit);
  },
};
