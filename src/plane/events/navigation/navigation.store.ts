import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.js';
import { cameraVisible, type CameraScope } from '../../rights/camera-rights.js';
import { EVENT_SELECT, feedWhere, type EventRow, type FeedFilter } from '../feed/events.read.store.js';

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
  async adjacent(
    db: Db,
    a: {
      scope: CameraScope;
      camera: string;
      anchor: Date;
      anchorId: string | null;
      direction: Direction;
      excluded: string[];
    },
  ): Promise<EventRow | undefined> {
    const back = a.direction === 'previous';
    const past =
      a.anchorId === null
        ? back
          ? sql`e.occurred_at <= ${a.anchor}`
          : sql`e.occurred_at >= ${a.anchor}`
        : back
          ? sql`e.occurred_at <= ${a.anchor} and (e.occurred_at, e.id) < (${a.anchor}, ${a.anchorId})`
          : sql`e.occurred_at >= ${a.anchor} and (e.occurred_at, e.id) > (${a.anchor}, ${a.anchorId})`;
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
  async navigate(
    db: Db,
    f: FeedFilter,
    anchor: Date,
    anchorId: string,
    direction: Direction,
  ): Promise<{ id: string; occurred_at: Date } | undefined> {
    const down = direction === 'next';
    const past = down
      ? sql`e.occurred_at <= ${anchor} and (e.occurred_at, e.id) < (${anchor}, ${anchorId})`
      : sql`e.occurred_at >= ${anchor} and (e.occurred_at, e.id) > (${anchor}, ${anchorId})`;
    const order = down ? sql`e.occurred_at desc, e.id desc` : sql`e.occurred_at asc, e.id asc`;
    const r = await sql<{ id: string; occurred_at: Date }>`select e.id, e.occurred_at from events e
      where ${feedWhere({ ...f, after: null })} and ${past} order by ${order} limit 1`.execute(db);
    return r.rows[0];
  },

  /**
   * navigate with a search (`q`): under a statement time-out, the search's candidates (every
   * filter, at most limit + 1 of them, through the GIN index) and their count, and the neighbour
   * among them, in one statement.
   */
  async navigateSearch(
    db: Db,
    f: FeedFilter,
    tsq: RawBuilder<unknown>,
    anchor: Date,
    anchorId: string,
    direction: Direction,
    candidateLimit: number,
    deadlineMs: number,
  ): Promise<{ candidates: number; row?: { id: string; occurred_at: Date } }> {
    const down = direction === 'next';
    const past = down
      ? sql`(c.occurred_at, c.id) < (${anchor}, ${anchorId})`
      : sql`(c.occurred_at, c.id) > (${anchor}, ${anchorId})`;
    const order = down ? sql`c.occurred_at desc, c.id desc` : sql`c.occurred_at asc, c.id asc`;
    return db.transaction().execute(async (trx) => {
      await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(deadlineMs)))}, true)`.execute(
        trx,
      );
      const r = await sql<{ candidates: number; id: string | null; occurred_at: Date | null }>`
        with cand as materialized (
          select e.occurred_at, e.id from events e where ${feedWhere({ ...f, after: null })} and e.search @@ ${tsq}
          limit ${candidateLimit + 1}
        )
        select (select count(*) from cand) as candidates, n.id, n.occurred_at
        from (select 1) one left join lateral (select c.id, c.occurred_at from cand c where ${past} order by ${order} limit 1) n on true`.execute(
        trx,
      );
      const x = r.rows[0]!;
      return { candidates: Number(x.candidates), row: x.id ? { id: x.id, occurred_at: x.occurred_at! } : undefined };
    });
  },

  /**
   * Those of the candidate keys that exist and match the feed's filter, newest first. The
   * candidates drive a nested loop of primary-key probes (one partition each), never a scan of
   * the time range; the range bound only prunes partitions.
   */
  async reconcile(
    db: Db,
    f: FeedFilter,
    keys: Array<{ id: string; at: Date }>,
    search?: { tsq: RawBuilder<unknown>; deadlineMs: number },
  ): Promise<EventRow[]> {
    if (!keys.length) return [];
    if (search) {
      // The search only tests the candidates' own rows (at most 512), under its time-out.
      return db.transaction().execute(async (trx) => {
        await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(search.deadlineMs)))}, true)`.execute(
          trx,
        );
        return this.reconcileRows(trx, f, keys, sql`and e.search @@ ${search.tsq}`);
      });
    }
    return this.reconcileRows(db, f, keys, sql``);
  },

  async reconcileRows(
    db: Db,
    f: FeedFilter,
    keys: Array<{ id: string; at: Date }>,
    also: RawBuilder<unknown>,
  ): Promise<EventRow[]> {
    const times = keys.map((k) => k.at.getTime());
    const min = new Date(Math.min(...times)),
      max = new Date(Math.max(...times));
    const r = await sql<EventRow>`select ${EVENT_SELECT}
      from unnest(${keys.map((k) => k.at.toISOString())}::timestamptz[], ${keys.map((k) => k.id)}::uuid[]) as k(at, id)
        join events e on e.occurred_at = k.at and e.id = k.id
        left join cameras c on c.id = e.camera_id left join nodes n on n.id = e.node_id
      where e.occurred_at between ${min} and ${max} and ${feedWhere({ ...f, after: null })} ${also}
      order by e.occurred_at desc, e.id desc`.execute(db);
    return r.rows;
  },
};
