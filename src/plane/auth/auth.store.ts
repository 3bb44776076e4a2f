import { sql } from 'kysely';
import type { Db } from '../db/database.js';

export interface SigningKey {
  materialId: string;
  epoch: number;
  secret: Uint8Array;
}

export function kidOf(k: SigningKey): string {
  return `${k.materialId}.${k.epoch}`;
}

export interface SessionUserRow {
  session_id: string;
  expires_at: Date;
  user_id: string;
  org_id: string;
  role: 'superadmin' | 'admin' | 'user';
  login: string;
  name: string;
}

/** The only SQL of sessions and signing keys. */
export const authStore = {
  async loadKey(db: Db): Promise<SigningKey | undefined> {
    const row = await db.selectFrom('signing_keys').select(['material_id', 'epoch', 'secret']).executeTakeFirst();
    return row ? { materialId: row.material_id, epoch: row.epoch, secret: new Uint8Array(row.secret) } : undefined;
  },

  async insertKeyIfAbsent(db: Db, k: SigningKey): Promise<void> {
    await db
      .insertInto('signing_keys')
      .values({ material_id: k.materialId, epoch: k.epoch, secret: Buffer.from(k.secret) })
      .onConflict((oc) => oc.doNothing())
      .execute();
  },

  async replaceKey(db: Db, k: SigningKey, now: Date): Promise<void> {
    await db
      .updateTable('signing_keys')
      .set({ material_id: k.materialId, epoch: k.epoch, secret: Buffer.from(k.secret), rotated_at: now })
      .execute();
  },

  async findUserByLogin(db: Db, login: string) {
    return db
      .selectFrom('users')
      .select(['id', 'org_id', 'login', 'name', 'role', 'password_hash', 'disabled'])
      .where((eb) => eb(eb.fn('lower', ['login']), '=', login.toLowerCase()))
      .executeTakeFirst();
  },

  async insertSession(
    db: Db,
    s: {
      id: string;
      user_id: string;
      org_id: string;
      kid: string;
      created_at: Date;
      expires_at: Date;
      ip: string;
      user_agent: string;
    },
  ) {
    await db.insertInto('sessions').values(s).execute();
  },

  /**
   * Serialises the logins of one user until the transaction ends, so concurrent logins each see
   * the sessions of the ones before and max_sessions_per_user holds (a transaction-level
   * advisory lock: no row of another domain's table is locked).
   */
  async lockUserSessions(db: Db, userId: string): Promise<void> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`sessions:${userId}`}, 0))`.execute(db);
  },

  /** Live sessions of a user beyond `keep`, oldest first: revoked to honour max_sessions_per_user. */
  async revokeOldestBeyond(db: Db, userId: string, keep: number, now: Date): Promise<string[]> {
    const live = await db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', now)
      .orderBy('created_at', 'desc')
      .execute();
    const excess = live.slice(Math.max(0, keep)).map((r) => r.id);
    if (excess.length) await db.updateTable('sessions').set({ revoked_at: now }).where('id', 'in', excess).execute();
    return excess;
  },

  async findLiveSession(db: Db, sessionId: string, kid: string, now: Date): Promise<SessionUserRow | undefined> {
    return db
      .selectFrom('sessions as s')
      .innerJoin('users as u', 'u.id', 's.user_id')
      .select(['s.id as session_id', 's.expires_at', 'u.id as user_id', 'u.org_id', 'u.role', 'u.login', 'u.name'])
      .where('s.id', '=', sessionId)
      .where('s.kid', '=', kid)
      .where('s.revoked_at', 'is', null)
      .where('s.expires_at', '>', now)
      .where('u.disabled', '=', false)
      .executeTakeFirst();
  },

  async revokeSession(db: Db, sessionId: string, now: Date): Promise<void> {
    await db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('id', '=', sessionId)
      .where('revoked_at', 'is', null)
      .execute();
  },

  async revokeUserSessions(db: Db, userId: string, now: Date): Promise<void> {
    await db
      .updateTable('sessions')
      .set({ revoked_at: now })
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .execute();
  },

  async revokeAllSessions(db: Db, now: Date): Promise<void> {
    await db.updateTable('sessions').set({ revoked_at: now }).where('revoked_at', 'is', null).execute();
  },

  async maxSessionsPerUser(db: Db, orgId: string): Promise<number | null> {
    const row = await db.selectFrom('orgs').select('max_sessions_per_user').where('id', '=', orgId).executeTakeFirst();
    return row?.max_sessions_per_user ?? null;
  },

  /**
   * Expired sessions still inside the prepared sessions_count (unrevoked, expiry not yet swept):
   * a usage read subtracts them; the expiry job keeps this set small (partial index 0013).
   */
  async countExpiredUnswept(db: Db, orgId: string, now: Date): Promise<number> {
    const r = await db
      .selectFrom('sessions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('org_id', '=', orgId)
      .where('revoked_at', 'is', null)
      .where('expired_swept', '=', false)
      .where('expires_at', '<=', now)
      .executeTakeFirst();
    return Number(r?.n ?? 0);
  },

  /** Marks up to `limit` expired sessions swept (their statement trigger takes them off sessions_count). */
  async sweepExpired(db: Db, now: Date, limit: number): Promise<number> {
    const r = await db
      .updateTable('sessions')
      .set({ expired_swept: true })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('sessions')
          .select('id')
          .where('revoked_at', 'is', null)
          .where('expired_swept', '=', false)
          .where('expires_at', '<=', now)
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(r.numUpdatedRows);
  },
};
