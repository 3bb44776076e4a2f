import type { Db } from '../db/database.js';
import type { UserRole } from './users.schemas.js';

export interface UserRecord {
  id: string;
  org_id: string;
  login: string;
  name: string;
  role: UserRole;
  disabled: boolean;
}
const COLUMNS = ['id', 'org_id', 'login', 'name', 'role', 'disabled'] as const;

/** The only SQL of users. */
export const usersStore = {
  async audience(db: Db, orgId: string, ids: string[]): Promise<Array<{ id: string; login: string; name: string }>> {
    if (!ids.length) return [];
    return db
      .selectFrom('users')
      .select(['id', 'login', 'name'])
      .where('org_id', '=', orgId)
      .where('role', '=', 'user')
      .where('disabled', '=', false)
      .where('id', 'in', ids)
      .orderBy('login')
      .execute();
  },

  async anySuperadmin(db: Db): Promise<boolean> {
    const r = await db.selectFrom('users').select('id').where('role', '=', 'superadmin').limit(1).executeTakeFirst();
    return r !== undefined;
  },

  /** The organisation of the first superadmin (the bootstrap one): home of events that belong to no organisation. */
  async superadminOrg(db: Db): Promise<string | null> {
    const r = await db
      .selectFrom('users')
      .select('org_id')
      .where('role', '=', 'superadmin')
      .orderBy('created_at')
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    return r?.org_id ?? null;
  },

  async insert(
    db: Db,
    u: {
      id: string;
      org_id: string;
      login: string;
      name: string;
      role: UserRole;
      password_hash: string;
      disabled?: boolean;
    },
  ) {
    await db.insertInto('users').values(u).execute();
  },

  async list(db: Db, q: { orgId: string | null; after: string | null; limit: number }): Promise<UserRecord[]> {
    let s = db
      .selectFrom('users')
      .select(COLUMNS)
      .orderBy('id')
      .limit(q.limit + 1);
    if (q.orgId) s = s.where('org_id', '=', q.orgId);
    if (q.after) s = s.where('id', '>', q.after);
    return s.execute();
  },

  /** One user, within `orgId` when given; locked for the caller's transaction when asked. */
  async get(db: Db, id: string, orgId: string | null, opts: { lock?: boolean } = {}): Promise<UserRecord | undefined> {
    let s = db.selectFrom('users').select(COLUMNS).where('id', '=', id);
    if (orgId) s = s.where('org_id', '=', orgId);
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst();
  },

  async countInOrg(db: Db, orgId: string): Promise<number> {
    const r = await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },

  async update(
    db: Db,
    id: string,
    set: Partial<Omit<UserRecord, 'id'>> & { password_hash?: string },
    now: Date,
  ): Promise<void> {
    await db
      .updateTable('users')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .execute();
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('users').where('id', '=', id).execute();
  },
};
