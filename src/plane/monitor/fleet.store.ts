import { sql } from 'kysely';
import type { Db } from '../db/database.js';

/** A node's row as the publisher writes it: its newest frame (JSON text) and last known stream total. */
export interface NodeFrameRow {
  node_id: string;
  seq: number;
  known_total: number | null;
  frame: string;
  /** the node's streams with their ingest figures (JSON text of StreamFigures[]), null when not read */
  streams?: string | null;
}

/** What a process loads: the sweep number, the summary text, and every node's frame number (text only when above `above`). */
export interface FleetRead {
  seq: number;
  summary: string | null;
  nodes: Array<{ node_id: string; seq: number; frame: string | null }>;
}

/**
 * The only SQL of the fleet monitor, on its own two tables (migration 0012). Frames and the summary
 * are `json` (kept as written), so every process serves the publisher's exact text.
 */
export const fleetStore = {
  /**
   * Draws the next sweep number and `frames` node-frame numbers under the row's lock: a second
   * publisher waits for the first one's commit and continues from its numbers.
   */
  async drawNumbers(trx: Db, frames: number): Promise<{ seq: number; firstFrame: number }> {
    const r = await sql<{
      seq: number;
      last: number;
    }>`update monitor_fleet set seq = seq + 1, frame_seq = frame_seq + ${frames}::bigint
      where id = 1 returning seq, frame_seq as last`.execute(trx);
    const row = r.rows[0]!;
    return { seq: Number(row.seq), firstFrame: Number(row.last) - frames + 1 };
  },

  /** The last known stream total of each of these nodes (a node without one is absent). */
  async knownTotals(trx: Db, nodeIds: string[]): Promise<Map<string, number>> {
    if (!nodeIds.length) return new Map();
    const r = await sql<{ node_id: string; known_total: number }>`select node_id, known_total from monitor_node_frames
      where node_id = any(${nodeIds}::uuid[]) and known_total is not null`.execute(trx);
    return new Map(r.rows.map((x) => [x.node_id, Number(x.known_total)]));
  },

  /**
   * Replaces the snapshot: these rows in (a row without a total keeps the one known), every node the
   * sweep did not poll out; then the summary.
   */
  async writeSweep(trx: Db, seq: number, summary: string, rows: NodeFrameRow[], firstFrame: number): Promise<void> {
    if (rows.length) {
      // One JSON text for all rows (one native JSON.stringify, no array literal to escape); `json`
      // keeps each frame's text as written, so the stored frame is byte for byte the one sent.
      const doc = `[${rows.map((r) => `{"node_id":${JSON.stringify(r.node_id)},"seq":${r.seq},"known_total":${r.known_total ?? 'null'},"frame":${r.frame},"streams":${r.streams ?? 'null'}}`).join(',')}]`;
      await sql`insert into monitor_node_frames (node_id, seq, known_total, frame, streams)
        select x.node_id, x.seq, x.known_total, x.frame, x.streams
        from json_to_recordset(${doc}::json) as x(node_id uuid, seq bigint, known_total int, frame json, streams json)
        on conflict (node_id) do update set seq = excluded.seq, known_total = coalesce(excluded.known_total, monitor_node_frames.known_total), frame = excluded.frame, streams = excluded.streams`.execute(
        trx,
      );
    }
    // Every row this sweep wrote is numbered from `firstFrame` on; an older number is a node it did not poll.
    await sql`delete from monitor_node_frames where seq < ${firstFrame}::bigint`.execute(trx);
    await sql`update monitor_fleet set summary = ${summary}::json where id = 1 and seq = ${seq}`.execute(trx);
  },

  /** The streams (JSON text) the latest sweep read of each of these nodes, with the sweep's time; a node without any is absent. */
  async streamFigures(
    db: Db,
    nodeIds: string[],
  ): Promise<Array<{ node_id: string; streams: string; attempted_at: string }>> {
    if (!nodeIds.length) return [];
    const r = await sql<{ node_id: string; streams: string; attempted_at: string }>`
      select node_id, streams::text as streams, frame->>'attempted_at' as attempted_at from monitor_node_frames
      where node_id = any(${nodeIds}::uuid[]) and streams is not null`.execute(db);
    return r.rows;
  },

  /**
   * The stored state in one statement (one snapshot of the database, so never half a sweep):
   * frames are read only above `above`, the frame numbers of all nodes always (who left).
   */
  async read(db: Db, above: number): Promise<FleetRead> {
    const r = await sql<{
      seq: number;
      summary: string | null;
      nodes: Array<{ node_id: string; seq: number; frame: string | null }> | null;
    }>`
      select f.seq, f.summary::text as summary,
        (select json_agg(json_build_object('node_id', n.node_id, 'seq', n.seq, 'frame', case when n.seq > ${above}::bigint then n.frame::text end) order by n.seq)
           from monitor_node_frames n) as nodes
      from monitor_fleet f where f.id = 1`.execute(db);
    const row = r.rows[0];
    if (!row) return { seq: 0, summary: null, nodes: [] };
    return {
      seq: Number(row.seq),
      summary: row.summary,
      nodes: (row.nodes ?? []).map((n) => ({ node_id: n.node_id, seq: Number(n.seq), frame: n.frame })),
    };
  },
};
