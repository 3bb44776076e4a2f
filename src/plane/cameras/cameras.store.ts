import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../db/database.js';
import { cameraVisible, type CameraScope } from '../rights/camera-rights.js';

export interface CameraRecord {
  id: string; org_id: string; node_id: string; name: string; main_source: string; sub_source: string | null;
  status: 'live' | 'unavailable' | 'degraded' | 'failing';
}
export interface CameraIdentity { id: string; node_id: string; name: string; node_name: string }
const COLUMNS = ['c.id', 'c.org_id', 'c.node_id', 'c.name', 'c.main_source', 'c.sub_source', 'c.status'] as const;

/** The only SQL of cameras and their tags. Visibility comes from the camera-rights rule. */
export const camerasStore = {
  async list(db: Db, q: { scope: CameraScope; after: string | null; limit: number }): Promise<CameraRecord[]> {
    let s = db.selectFrom('cameras as c').select(COLUMNS).where(cameraVisible(q.scope, 'c.id', 'c.org_id')).orderBy('c.id').limit(q.limit + 1);
    if (q.after) s = s.where('c.id', '>', q.after);
    return s.execute();
  },

  async get(db: Db, id: string, scope: CameraScope, opts: { lock?: boolean } = {}): Promise<CameraRecord | undefined> {
    let s = db.selectFrom('cameras as c').select(COLUMNS).where('c.id', '=', id).where(cameraVisible(scope, 'c.id', 'c.org_id'));
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst();
  },

  async tagsOf(db: Db, ids: string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(ids.map((i) => [i, []]));
    if (!ids.length) return out;
    const rows = await db.selectFrom('camera_tags').select(['camera_id', 'tag_id']).where('camera_id', 'in', ids).orderBy('tag_id').execute();
    for (const r of rows) out.get(r.camera_id)?.push(r.tag_id);
    return out;
  },

  /** Camera and node names of those of `ids` that are cameras of `orgId`, as a scalar JSON subquery another statement embeds (event intake, frames). */
  identitiesSql(orgId: string, ids: string[]): RawBuilder<CameraIdentity[]> {
    return sql<CameraIdentity[]>`(select coalesce(json_agg(json_build_object('id', c.id, 'node_id', c.node_id, 'name', c.name, 'node_name', n.name)), '[]')
      from cameras c join nodes n on n.id = c.node_id where c.org_id = ${orgId}::uuid and c.id = any(${ids}::uuid[]))`;
  },

  /** How many cameras `orgId` has, or how many of `ids` are its cameras. */
  async countInOrg(db: Db, orgId: string, ids?: string[]): Promise<number> {
    if (ids && !ids.length) return 0;
    let s = db.selectFrom('cameras').select((eb) => eb.fn.countAll<number>().as('n')).where('org_id', '=', orgId);
    if (ids) s = s.where('id', 'in', ids);
    return Number((await s.executeTakeFirst())?.n ?? 0);
  },

  async insert(db: Db, c: Omit<CameraRecord, 'status'>): Promise<void> {
    await db.insertInto('cameras').values(c).execute();
  },

  async update(db: Db, id: string, set: Partial<Pick<CameraRecord, 'name' | 'node_id' | 'main_source' | 'sub_source'>>, now: Date): Promise<void> {
    await db.updateTable('cameras').set({ ...set, updated_at: now }).where('id', '=', id).execute();
  },

  async setTags(db: Db, id: string, tagIds: string[]): Promise<void> {
    await db.deleteFrom('camera_tags').where('camera_id', '=', id).execute();
    if (tagIds.length) await db.insertInto('camera_tags').values(tagIds.map((t) => ({ camera_id: id, tag_id: t }))).execute();
  },

  /** Tags and grants of the camera go with it (ON DELETE CASCADE). */
  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('cameras').where('id', '=', id).execute();
  },
};
