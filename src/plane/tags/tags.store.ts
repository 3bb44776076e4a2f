import type { Db } from '../db/database.js';

export interface TagRecord {
  id: string;
  org_id: string;
  name: string;
}
const COLUMNS = ['id', 'org_id', 'name'] as const;

/** The only SQL of tags. */
export const tagsStore = {
  async list(db: Db, q: { orgId: string | null; after: string | null; limit: number }): Promise<TagRecord[]> {
    let s = db
      .selectFrom('tags')
      .select(COLUMNS)
      .orderBy('id')
      .limit(q.limit + 1);
    if (q.orgId) s = s.where('org_id', '=', q.orgId);
    if (q.after) s = s.where('id', '>', q.after);
    return s.execute();
  },

  async get(db: Db, id: string, orgId: string | null, opts: { lock?: boolean } = {}): Promise<TagRecord | undefined> {
    let s = db.selectFrom('tags').select(COLUMNS).where('id', '=', id);
    if (orgId) s = s.where('org_id', '=', orgId);
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst();
  },

  /** How many of `ids` are tags of `orgId`. */
  async countInOrg(db: Db, orgId: string, ids?: string[]): Promise<number> {
    if (ids && !ids.length) return 0;
    let s = db
      .selectFrom('tags')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId);
    if (ids) s = s.where('id', 'in', ids);
    return Number((await s.executeTakeFirst())?.n ?? 0);
  },

  async insert(db: Db, t: TagRecord): Promise<void> {
    await db.insertInto('tags').values(t).execute();
  },

  async rename(db: Db, id: string, name: string): Promise<void> {
    await db.updateTable('tags').set({ name }).where('id', '=', id).execute();
  },

  /** Camera labels and the rights given through the tag go with it (ON DELETE CASCADE). */
  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('tags').where('id', '=', id).execute();
  },
};
