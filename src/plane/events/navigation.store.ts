import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { cameraVisible, type CameraScope } from '../rights/camera-rights.js';
import { EVENT_SELECT, feedWhere, type EventRow, type FeedFilter } from './events.read.store.js';

export type Direction = 'previous' | 'next';

/**
 * The SQL of moving through events. Every query walks the (…, occurred_at, id) order of an index
 * with limit 1, and bounds occurred_at plainly next to the row comparison so that day partitions
 * on the far side of the anchor are pruned rather than probed.
 */
export const navigationStore = {
  /**
   * The event of one camera just before (earlier) or after (later) a playback position; with
   * `anchorId` strictly past the key (time, id), without it a time match counts.
   */
  async adjacent(db: Db, a: {
    scope: CameraScope; camera: string; anchor: Date; anchorId: string | null; direction: Direction; excluded: string[];
  }): Promise<EventRow | undefined> {
    const back = a.direction === 'previous';
    const past = a.anchorId === null
      ? (back ? sql`e.occurred_at <= ${a.anchor}` : sql`e.occurred_at >= ${a.anchor}`)
      : (back ? sql`e.occurred_at <= ${a.anchor} and (e.occurred_at, e.id) < (${a.anchor}, ${a.anchorId})`
        : sql`e.occurred_at >= ${a.anchor} and (e.occurred_at, e.id) > (${a.anchor}, ${a.anchorId})`);
    const order = back ? sql`e.occurred_at desc, e.id desc` : sql`e.occurred_at asc, e.id asc`;
    const r = await sql<EventRow>`select ${EVENT_SELECT}
      from events e left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id
      where e.camera_id = ${a.camera} and ${cameraVisible(a.scope, 'e.camera_id', 'e.org_id')} and ${past}
        ${a.excluded.length ? sql`and e.detector <> all(${a.excluded}::text[])` : sql``}
      order by ${order} limit 1`.execute(db);
    return r.rows[0];
  },

  /**
   * The key of the feed row next to (time, id) under the feed's filter: `next` is the row below
   * it in the newest-first feed (older), `previous` the row above it (newer).
   */
  async navigate(db: Db, f: FeedFilter, anchor: Date, anchorId: string, direction: Direction): Promise<{ id: string; occurred_at: Date } | undefined> {
    const down = direction === 'next';
    const past = down ? sql`e.occurred_at <= ${anchor} and (e.occurred_at, e.id) < (${anchor}, ${anchorId})`
      : sql`e.occurred_at >= ${anchor} and (e.occurred_at, e.id) > (${anchor}, ${anchorId})`;
    const order = down ? sql`e.occurred_at desc, e.id desc` : sql`e.occurred_at asc, e.id asc`;
    const r = await sql<{ id: string; occurred_at: Date }>`select e.id, e.occurred_at from events e
      where ${feedWhere({ ...f, after: null })} and ${past} order by ${order} limit 1`.execute(db);
    return r.rows[0];
  },

  /**
   * Those of the candidate keys that exist and match the feed's filter, newest first. The
   * candidates drive a nested loop of primary-key probes (one partition each), never a scan of
   * the time range; the range bound only prunes partitions.
   */
  async reconcile(db: Db, f: FeedFilter, keys: Array<{ id: string; at: Date }>): Promise<EventRow[]> {
    if (!keys.length) return [];
    const times = keys.map((k) => k.at.getTime());
    const min = new Date(Math.min(...times)), max = new Date(Math.max(...times));
    const r = await sql<EventRow>`select ${EVENT_SELECT}
      from unnest(${keys.map((k) => k.at.toISOString())}::timestamptz[], ${keys.map((k) => k.id)}::uuid[]) as k(at, id)
        join events e on e.occurred_at = k.at and e.id = k.id
        left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id
      where e.occurred_at between ${min} and ${max} and ${feedWhere({ ...f, after: null })}
      order by e.occurred_at desc, e.id desc`.execute(db);
    return r.rows;
  },
};
