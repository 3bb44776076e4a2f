import type { Db } from '../db/database.js';
import { LIMIT_FIELDS, type LimitField } from './orgs.schemas.js';

export type OrgRecord = { id: string; name: string } & Record<LimitField, number | null>;
const COLUMNS = ['id', 'name', ...LIMIT_FIELDS] as const;

/**
 * The only SQL of organisations. A deleted organisation whose archive cleanup still runs keeps
 * its row with `deleted_at` set: every read here leaves it out, so it is gone at once.
 */
export const orgsStore = {
  async findByName(db: Db, name: string) {
    return db
      .selectFrom('orgs')
      .selectAll()
      .where('deleted_at', 'is', null)
      .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
      .executeTakeFirst();
  },

  async insert(db: Db, o: { id: string; name: string } & Partial<Record<LimitField, number | null>>) {
    const limits = Object.fromEntries(LIMIT_FIELDS.map((f) => [f, o[f] ?? null])) as Record<LimitField, number | null>;
    await db
      .insertInto('orgs')
      .values({ ...limits, id: o.id, name: o.name })
      .execute();
  },

  async list(db: Db, q: { after: string | null; limit: number }): Promise<OrgRecord[]> {
    let s = db
      .selectFrom('orgs')
      .select(COLUMNS)
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .limit(q.limit + 1);
    if (q.after) s = s.where('id', '>', q.after);
    return s.execute() as Promise<OrgRecord[]>;
  },

  /** `lock`: `update` for writers and quota counts, `share` for a record that merely references it. */
  async get(db: Db, id: string, opts: { lock?: boolean | 'share' } = {}): Promise<OrgRecord | undefined> {
    let s = db.selectFrom('orgs').select(COLUMNS).where('id', '=', id).where('deleted_at', 'is', null);
    if (opts.lock === 'share') s = s.forShare();
    else if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst() as Promise<OrgRecord | undefined>;
  },

  async update(db: Db, id: string, set: Partial<OrgRecord>, now: Date): Promise<void> {
    await db
      .updateTable('orgs')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .execute();
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('orgs').where('id', '=', id).execute();
  },

  async markDeleted(db: Db, id: string, at: Date): Promise<void> {
    await db.updateTable('orgs').set({ deleted_at: at, updated_at: at }).where('id', '=', id).execute();
  },

  /** Removes the row of a deleted organisation (its templates and usage row cascade); false if it is not there. */
  async removeDeleted(db: Db, id: string): Promise<boolean> {
    const r = await db.deleteFrom('orgs').where('id', '=', id).where('deleted_at', 'is not', null).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  },
};
