import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import type { ModuleTokenCredential } from './module-tokens.types.js';

export type { ModuleTokenCredential };

export interface ModuleTokenRecord {
  id: string;
  org_id: string;
  name: string;
  rate_limit: number | null;
  enabled: boolean;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = ['id', 'org_id', 'name', 'rate_limit', 'enabled', 'created_at', 'last_used_at'] as const;
// Reserved names (`__` prefix) are the plane's own producers: never listed, read or changed here.
const visible = sql<boolean>`name not like '\\_\\_%'`;

/** The only SQL of module tokens. */
export const moduleTokensStore = {
  async list(
    db: Db,
    q: { orgId: string | null; after: string | null; limit: number; q: string | null },
  ): Promise<ModuleTokenRecord[]> {
    let s = db
      .selectFrom('module_tokens')
      .select(COLUMNS)
      .where(visible)
      .orderBy('id')
      .limit(q.limit + 1);
    if (q.orgId) s = s.where('org_id', '=', q.orgId);
    if (q.after) s = s.where('id', '>', q.after);
    if (q.q) s = s.where(sql<boolean>`strpos(lower(name), ${q.q.toLowerCase()}) > 0`);
    return s.execute();
  },

  async get(
    db: Db,
    id: string,
    orgId: string | null,
    opts: { lock?: boolean } = {},
  ): Promise<ModuleTokenRecord | undefined> {
    let s = db.selectFrom('module_tokens').select(COLUMNS).where('id', '=', id).where(visible);
    if (orgId) s = s.where('org_id', '=', orgId);
    if (opts.lock) s = s.forUpdate();
    return s.executeTakeFirst();
  },

  async insert(
    db: Db,
    t: {
      id: string;
      org_id: string;
      name: string;
      rate_limit: number | null;
      secret_sha256: Uint8Array;
      created_at: Date;
    },
  ): Promise<void> {
    await db
      .insertInto('module_tokens')
      .values({ ...t, updated_at: t.created_at })
      .execute();
  },

  async update(
    db: Db,
    id: string,
    set: { name?: string; rate_limit?: number | null; enabled?: boolean; secret_sha256?: Uint8Array },
    now: Date,
  ): Promise<void> {
    await db
      .updateTable('module_tokens')
      .set({ ...set, updated_at: now })
      .where('id', '=', id)
      .execute();
  },

  async delete(db: Db, id: string): Promise<void> {
    await db.deleteFrom('module_tokens').where('id', '=', id).execute();
  },

  /** Every token of an organisation, reserved ones too (its deletion); returns how many. */
  async deleteOfOrg(db: Db, orgId: string): Promise<number> {
    const r = await db.deleteFrom('module_tokens').where('org_id', '=', orgId).executeTakeFirst();
    return Number(r.numDeletedRows);
  },

  /** The enabled token with this secret hash (reserved ones included: they send events too). */
  async bySecret(db: Db, hash: Uint8Array): Promise<ModuleTokenCredential | undefined> {
    return db
      .selectFrom('module_tokens')
      .select(['id', 'org_id', 'name', 'rate_limit', 'last_used_at'])
      .where('secret_sha256', '=', hash)
      .where('enabled', '=', true)
      .executeTakeFirst();
  },

  async touch(db: Db, id: string, now: Date): Promise<void> {
    await db.updateTable('module_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
  },
};
