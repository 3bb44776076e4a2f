import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { EventFrame } from './events.frames.js';
import { FRAME_COLUMNS, FRAME_FROM, storedFrame, type FrameRow } from './frames.store.js';

type StreamRow = FrameRow;
const frameOf = storedFrame;

const bySeq = (a: EventFrame, b: EventFrame) => a.seq - b.seq;

/**
 * The SQL of the live event stream: frames by stream position, rows and tombstones alike. Here in
 * the log, which owns both tables; the stream's ring reads it through the RingReader it is handed.
 */
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
    const rows =
      await sql<StreamRow>`select ${FRAME_COLUMNS} from ${FRAME_FROM} where e.seq = any(${seqs}::bigint[])`.execute(db);
    const tombs = await sql<{
      frame: EventFrame;
    }>`select frame from event_tombstones where seq = any(${seqs}::bigint[])`.execute(db);
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
