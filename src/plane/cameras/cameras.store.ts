import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { cameraVisible, type CameraScope } from '../rights/camera-rights.js';

/** A node of a fleet session page (sessionsNodePage); `cameras` [id, name, visible] is null for the one past the page. */
export interface SessionsPageNode {
  id: string;
  name: string;
  url: string;
  enabled: boolean;
  api_token_enc: string;
  cameras: Array<[string, string, boolean]> | null;
}

export interface CameraRecord {
  id: string;
  org_id: string;
  node_id: string;
  name: string;
  main_source: string;
  sub_source: string | null;
  /** the camera's recording retention (node grammar, e.g. 7d); null: no recording */
  recording_retention: string | null;
  status: 'live' | 'unavailable' | 'degraded' | 'failing';
}
export type CameraStatus = CameraRecord['status'];
/** How many cameras the inventory holds, and how many of each status. */
export interface CameraCounts {
  total: number;
  live: number;
  unavailable: number;
  degraded: number;
  failing: number;
}
/** A camera as the sweeper reads it: its status and the start of its open offline interval. */
export interface NodeCamera {
  id: string;
  org_id: string;
  node_id: string;
  name: string;
  status: CameraStatus;
  offline_since: Date | null;
  // what the reconcile wants on the node
  main_source: string;
  sub_source: string | null;
  recording_retention: string | null;
}
const COLUMNS = [
  'c.id',
  'c.org_id',
  'c.node_id',
  'c.name',
  'c.main_source',
  'c.sub_source',
  'c.recording_retention',
  'c.status',
] as const;
const NODE_CAMERA = [
  'id',
  'org_id',
  'node_id',
  'name',
  'status',
  'offline_since',
  'main_source',
  'sub_source',
  'recording_retention',
] as const;

/**
 * The only SQL of cameras and their tags. Visibility comes from the camera-rights rule. Status
 * and offline_since are the sweeper's observations, written here at its request.
 */
export const camerasStore = {
  async list(db: Db, q: { scope: CameraScope; after: string | null; limit: number }): Promise<CameraRecord[]> {
    let s = db
      .selectFrom('cameras as c')
      .select(COLUMNS)
      .where(cameraVisible(q.scope, 'c.id', 'c.org_id'))
      .orderBy('c.id')
      .limit(q.limit + 1);
    if (q.after) s = s.where('c.id', '>', q.after);
    return s.execute();
  },

  async get(db: Db, id: string, scope: CameraScope, opts: { lock?: boolean } = {}): Promise<CameraRecord | undefined> {
    let s = db
      .selectFrom('cameras as c')
      .select(COLUMNS)
      .where('c.id', '=', id)
      .where(cameraVisible(scope, 'c.id', 'c.org_id'));
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst();
  },

  async tagsOf(db: Db, ids: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(ids.map((i) => [i, []]));
    if (!ids.length) return out;
    const rows = await db
      .selectFrom('camera_tags')
      .select(['camera_id', 'tag_id'])
      .where('camera_id', 'in', ids)
      .orderBy('tag_id')
      .execute();
    for (const r of rows) out.get(r.camera_id)?.push(r.tag_id);
    return out;
  },

  /** The inventory by status, one aggregate (a camera is one row whatever its profiles). */
  async statusCounts(db: Db): Promise<CameraCounts> {
    const r = await sql<CameraCounts>`select count(*)::int as total,
      (count(*) filter (where status = 'live'))::int as live,
      (count(*) filter (where status = 'unavailable'))::int as unavailable,
      (count(*) filter (where status = 'degraded'))::int as degraded,
      (count(*) filter (where status = 'failing'))::int as failing
      from cameras`.execute(db);
    return r.rows[0]!;
  },

  async ofNode(db: Db, nodeId: string): Promise<NodeCamera[]> {
    return db.selectFrom('cameras').select(NODE_CAMERA).where('node_id', '=', nodeId).orderBy('id').execute();
  },

  /** The cameras of several nodes in one query (a sweep's batch). */
  async ofNodes(db: Db, nodeIds: string[]): Promise<NodeCamera[]> {
    if (!nodeIds.length) return [];
    return db.selectFrom('cameras').select(NODE_CAMERA).where('node_id', 'in', nodeIds).orderBy('id').execute();
  },

  /** Sets each camera's status; writes only the rows that change. */
  async setStatuses(trx: Db, rows: Array<{ id: string; status: CameraStatus }>): Promise<void> {
    if (!rows.length) return;
    await sql`update cameras c set status = x.status
      from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.status)}::text[]) as x(id, status)
      where c.id = x.id and c.status is distinct from x.status`.execute(trx);
  },

  /** Starts the offline interval of those cameras not already offline; returns the ones it started. */
  async openOffline(trx: Db, ids: string[], at: Date): Promise<string[]> {
    if (!ids.length) return [];
    const r = await sql<{ id: string }>`update cameras set offline_since = ${at}
      where id = any(${ids}::uuid[]) and offline_since is null returning id`.execute(trx);
    return r.rows.map((x) => x.id);
  },

  async openOfflineAt(trx: Db, rows: Array<{ id: string; at: Date }>): Promise<string[]> {
    if (!rows.length) return [];
    const r = await sql<{ id: string }>`update cameras c set offline_since = x.at
      from unnest(${rows.map((x) => x.id)}::uuid[], ${rows.map((x) => x.at.toISOString())}::timestamptz[]) as x(id, at)
      where c.id = x.id and c.offline_since is null returning c.id`.execute(trx);
    return r.rows.map((x) => x.id);
  },

  /** Ends the offline interval of those cameras that are offline; returns each with its start. */
  async closeOffline(trx: Db, ids: string[]): Promise<Array<{ id: string; was: Date }>> {
    if (!ids.length) return [];
    const r = await sql<{
      id: string;
      was: Date;
    }>`with old as (select id, offline_since from cameras where id = any(${ids}::uuid[]) and offline_since is not null for update)
      update cameras c set offline_since = null from old where c.id = old.id returning c.id, old.offline_since as was`.execute(
      trx,
    );
    return r.rows;
  },

  /** How many cameras `orgId` has, or how many of `ids` are its cameras. */
  async countInOrg(db: Db, orgId: string, ids?: string[]): Promise<number> {
    if (ids && !ids.length) return 0;
    let s = db
      .selectFrom('cameras')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId);
    if (ids) s = s.where('id', 'in', ids);
    return Number((await s.executeTakeFirst())?.n ?? 0);
  },

  async insert(db: Db, c: Omit<CameraRecord, 'status'>): Promise<void> {
    await db.insertInto('cameras').values(c).execute();
  },

  async update(
    db: Db,
    id: string,
    set: Partial<Pick<CameraRecord, 'name' | 'node_id' | 'main_source' | 'sub_source' | 'recording_retention'>>,
    now: Date,
  ): Promise<void> {
    await db
      .updateTable('cameras')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .execute();
  },

  async setTags(db: Db, id: string, tagIds: string[]): Promise<void> {
    await db.deleteFrom('camera_tags').where('camera_id', '=', id).execute();
    if (tagIds.length)
      await db
        .insertInto('camera_tags')
        .values(tagIds.map((t) => ({ camera_id: id, tag_id: t })))
        .execute();
  },

  /**
   * One page of the fleet session list in one query: the first `count + 1` nodes from `from`
   * (inclusive, ascending by id) hosting cameras of `scope` (only camera `camera` when given),
   * each with what it takes to call it (its write token sealed) and, for the first `count`, all
   * its cameras (id, name, whether `scope` sees it): the rights check of the rows those nodes
   * report, the cameras of other scopes included so that their viewers need no second look.
   */
  async sessionsNodePage(
    db: Db,
    scope: CameraScope,
    q: { from: string | null; camera: string | null; count: number },
  ): Promise<SessionsPageNode[]> {
    const visible = cameraVisible(scope, 'c.id', 'c.org_id');
    const oneCamera = q.camera === null ? sql`true` : sql`c.id = ${q.camera}::uuid`;
    const from = q.from === null ? sql`true` : sql`c.node_id >= ${q.from}::uuid`;
    const r = await sql<SessionsPageNode>`with p as (
        select distinct c.node_id from cameras c where ${visible} and ${oneCamera} and ${from}
        order by c.node_id limit ${q.count + 1}),
      k as (select node_id, row_number() over (order by node_id) as i from p)
      select n.id, n.name, n.url, n.enabled, n.api_token_enc,
        case when k.i <= ${q.count} then (select coalesce(json_agg(json_build_array(c.id, c.name, ${visible})), '[]'::json)
          from cameras c where c.node_id = k.node_id) end as cameras
      from k join nodes n on n.id = k.node_id order by k.node_id`.execute(db);
    return r.rows;
  },

  /** Those of `ids` (valid uuids) within `scope`, with their name and node. */
  async someIn(
    db: Db,
    scope: CameraScope,
    ids: string[],
  ): Promise<Array<{ id: string; name: string; node_id: string }>> {
    if (!ids.length) return [];
    return (
      db
        .selectFrom('cameras as c')
        .select(['c.id', 'c.name', 'c.node_id'])
        // One array parameter rather than one per id: a fleet session page re-checks up to 400 cameras.
        .where(sql<boolean>`c.id = any(${ids}::uuid[])`)
        .where(cameraVisible(scope, 'c.id', 'c.org_id'))
        .execute()
    );
  },

  /** Tags and grants of the camera go with it (ON DELETE CASCADE). */
  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('cameras').where('id', '=', id).execute();
  },
};
