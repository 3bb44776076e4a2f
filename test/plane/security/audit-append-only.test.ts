import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { login } from '../client.js';

// Finding 8 of issue 10: the application's database role cannot rewrite the audit trail.
let t: TestPlane;
beforeAll(async () => {
  t = await startPlane();
  await login(t.plane.app);
});
afterAll(async () => {
  await t?.close();
});

const db = () => t.db.database.db;
const oneRow = async () =>
  db().selectFrom('audit').select(['id', 'occurred_at']).where('action', '=', 'auth.login').executeTakeFirstOrThrow();

describe('audit records are append-only', () => {
  it('refuses UPDATE of a record', async () => {
    const r = await oneRow();
    await expect(
      db().updateTable('audit').set({ actor_name: 'someone else' }).where('id', '=', r.id).execute(),
    ).rejects.toThrow(/append-only/);
    await expect(sql`update audit set ip = '1.2.3.4'`.execute(db())).rejects.toThrow(/append-only/);
  });

  it('refuses DELETE', async () => {
    const r = await oneRow();
    await expect(db().deleteFrom('audit').where('id', '=', r.id).execute()).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit`.execute(db())).rejects.toThrow(/append-only/);
  });

  it('refuses TRUNCATE, of the table and of a partition', async () => {
    await expect(sql`truncate audit`.execute(db())).rejects.toThrow(/append-only/);
    const part = await sql<{
      name: string;
    }>`select inhrelid::regclass::text as name from pg_inherits where inhparent = 'audit'::regclass and inhrelid::regclass::text <> 'audit_default' limit 1`.execute(
      db(),
    );
    await expect(sql.raw(`truncate ${part.rows[0]!.name}`).execute(db())).rejects.toThrow(/append-only/);
    expect(
      Number((await sql<{ n: number }>`select count(*)::int as n from audit`.execute(db())).rows[0]!.n),
    ).toBeGreaterThan(0);
  });

  it('still lets the plane close a begun record (ended_at, once per extension)', async () => {
    const r = await oneRow();
    const { auditStore } = await import('../../../src/plane/audit/audit.store.js');
    const closed = await db()
      .transaction()
      .execute((trx) => auditStore.close(trx, r.id, r.occurred_at as Date, new Date(), 2));
    expect(closed?.ended_at).toBeTruthy();
  });
});
