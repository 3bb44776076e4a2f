import type { Db } from '../db/database.js';
import type { Preferences } from './preferences.schemas.js';

/** The only SQL of preferences: one document per user, in `user_preferences` (0017). */
export const preferencesStore = {
  /** The user's saved document, or undefined when the user never saved one. */
  async get(db: Db, userId: string): Promise<Preferences | undefined> {
    const row = await db.selectFrom('user_preferences').select('doc').where('user_id', '=', userId).executeTakeFirst();
    return row?.doc as Preferences | undefined;
  },

  /** Replaces the user's document whole (inserts the first one). */
  async put(db: Db, userId: string, doc: Preferences, at: Date): Promise<void> {
    const json = JSON.stringify(doc);
    await db
      .insertInto('user_preferences')
      .values({ user_id: userId, doc: json, updated_at: at })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ doc: json, updated_at: at }))
      .execute();
  },
};
