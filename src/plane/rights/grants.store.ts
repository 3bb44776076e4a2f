import type { Db } from '../db/database.js';

/** The only SQL of camera rights: direct camera grants and tag grants of a user. */
export const grantsStore = {
  async get(db: Db, userId: string): Promise<{ camera_ids: string[]; tag_ids: string[] }> {
    const [cams, tags] = await Promise.all([
      db
        .selectFrom('user_camera_grants')
        .select('camera_id')
        .where('user_id', '=', userId)
        .orderBy('camera_id')
        .execute(),
      db.selectFrom('user_tag_grants').select('tag_id').where('user_id', '=', userId).orderBy('tag_id').execute(),
    ]);
    return { camera_ids: cams.map((r) => r.camera_id), tag_ids: tags.map((r) => r.tag_id) };
  },

  async replace(db: Db, userId: string, g: { camera_ids: string[]; tag_ids: string[] }): Promise<void> {
    await db.deleteFrom('user_camera_grants').where('user_id', '=', userId).execute();
    await db.deleteFrom('user_tag_grants').where('user_id', '=', userId).execute();
    if (g.camera_ids.length)
      await db
        .insertInto('user_camera_grants')
        .values(g.camera_ids.map((camera_id) => ({ user_id: userId, camera_id })))
        .execute();
    if (g.tag_ids.length)
      await db
        .insertInto('user_tag_grants')
        .values(g.tag_ids.map((tag_id) => ({ user_id: userId, tag_id })))
        .execute();
  },
};
