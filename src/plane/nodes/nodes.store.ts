import type { Db } from '../db/database.js';

export interface NodeRecord {
  id: string; name: string; url: string; enabled: boolean; state: string; last_seen_at: Date | null; version: string | null;
  api_token_enc: string; auth_backend_secret_enc: string | null;
}
const COLUMNS = ['id', 'name', 'url', 'enabled', 'state', 'last_seen_at', 'version', 'api_token_enc', 'auth_backend_secret_enc'] as const;

/** The only SQL of nodes. Secrets are stored sealed; the service seals and opens them. */
export const nodesStore = {
  async list(db: Db, q: { after: string | null; limit: number }): Promise<NodeRecord[]> {
    let s = db.selectFrom('nodes').select(COLUMNS).orderBy('id').limit(q.limit + 1);
    if (q.after) s = s.where('id', '>', q.after);
    return s.execute();
  },

  async get(db: Db, id: string, opts: { lock?: boolean } = {}): Promise<NodeRecord | undefined> {
    let s = db.selectFrom('nodes').select(COLUMNS).where('id', '=', id);
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst();
  },

  async insert(db: Db, n: { id: string; name: string; url: string; enabled: boolean; api_token_enc: string; auth_backend_secret_enc: string | null }): Promise<void> {
    await db.insertInto('nodes').values(n).execute();
  },

  async update(db: Db, id: string, set: Partial<Omit<NodeRecord, 'id' | 'state' | 'last_seen_at' | 'version'>>, now: Date): Promise<void> {
    await db.updateTable('nodes').set({ ...set, updated_at: now }).where('id', '=', id).execute();
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('nodes').where('id', '=', id).execute();
  },
};
