import type { Db } from '../db/database.js';
import { LIMIT_FIELDS, type LimitField } from './orgs.schemas.js';

export type OrgRecord = { id: string; name: string } & Record<LimitField, number | null>;
const COLUMNS = ['id', 'name', ...LIMIT_FIELDS] as const;

/** The only SQL of organisations. */
export const orgsStore = {
  async findByName(db: Db, name: string) {
    return db.selectFrom('orgs').selectAll().where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase())).executeTakeFirst();
  },

  async insert(db: Db, o: { id: string; name: string } & Partial<Record<LimitField, number | null>>) {
    const limits = Object.fromEntries(LIMIT_FIELDS.map((f) => [f, o[f] ?? null])) as Record<LimitField, number | null>;
    await db.insertInto('orgs').values({ ...limits, id: o.id, name: o.name }).execute();
  },

  async list(db: Db, q: { after: string | null; limit: number }): Promise<OrgRecord[]> {
    let s = db.selectFrom('orgs').select(COLUMNS).orderBy('id').limit(q.limit + 1);
    if (q.after) s = s.where('id', '>', q.after);
    return s.execute() as Promise<OrgRecord[]>;
  },

  async get(db: Db, id: string, opts: { lock?: boolean } = {}): Promise<OrgRecord | undefined> {
    let s = db.selectFrom('orgs').select(COLUMNS).where('id', '=', id);
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst() as Promise<OrgRecord | undefined>;
  },

  async update(db: Db, id: string, set: Partial<OrgRecord>, now: Date): Promise<void> {
    await db.updateTable('orgs').set({ ...set, updated_at: now }).where('id', '=', id).execute();
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('orgs').where('id', '=', id).execute();
  },
};
