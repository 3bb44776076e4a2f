import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { boundFrame, frameOfRow, type EventFrame } from './events.frames.js';

/** A stored row with just what its frame needs (names joined from the inventory). */
export interface FrameRow {
  seq: number;
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
  changed: boolean;
}

// Only the columns of a frame (payload and attachments stay in the table).
export const FRAME_COLUMNS = sql`e.seq, e.id, e.occurred_at, e.ended_at, e.org_id, e.camera_id, c.name as camera_name, e.node_id,
  n.name as node_name, e.detector, e.detector_title, e.category, e.severity, e.template_id, e."interval", e.confidence,
  e.subject_type, e.subject_ref, e.ext_id, e.list_values, e.starred, e.changed`;
export const FRAME_FROM = sql`events e left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id`;

/** A row read from the table becomes the frame its notice would have carried. */
export function storedFrame(r: FrameRow): EventFrame {
  return boundFrame(frameOfRow(r, r.changed ? 'full' : 'created'));
}

/** The rows behind frames: the log re-reads the rows a write changed (one statement for the batch). */
export const framesStore = {
  async ofKeys(db: Db, keys: Array<{ id: string; occurred_at: Date }>): Promise<FrameRow[]> {
    if (!keys.length) return [];
    const r = await sql<FrameRow>`select ${FRAME_COLUMNS}
      from unnest(${keys.map((k) => k.occurred_at.toISOString())}::timestamptz[], ${keys.map((k) => k.id)}::uuid[]) as k(at, id)
        join events e on e.occurred_at = k.at and e.id = k.id
        left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id`.execute(db);
    return r.rows;
  },
};
