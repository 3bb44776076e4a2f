import type { Db } from '../db/database.js';

/** The only SQL of users. */
export const usersStore = {
  async anySuperadmin(db: Db): Promise<boolean> {
    const r = await db.selectFrom('users').select('id').where('role', '=', 'superadmin').limit(1).executeTakeFirst();
    return r !== undefined;
  },

  async insert(db: Db, u: { id: string; org_id: string; login: string; name: string; role: 'superadmin' | 'admin' | 'user'; password_hash: string; disabled?: boolean }) {
    await db.insertInto('users').values(u).execute();
  },
};
