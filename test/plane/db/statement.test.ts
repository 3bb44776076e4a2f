import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { freshDatabase, type TestDb } from '../harness.js';
import { pgCode } from '../../../src/plane/db/pg-errors.js';
import { QUERY_CANCELED, StatementAbandoned, underLimits } from '../../../src/plane/db/statement.js';

// Issue 25, finding 1: a heavy read's deadline is enforced by PostgreSQL and local to its
// transaction, and the statement is cancelled when its caller goes away (db/statement.ts).
const onServer = !!process.env.TEST_DATABASE_URL;
let t: TestDb;
beforeAll(async () => {
  t = await freshDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const setting = async () =>
  (await sql<{ v: string }>`select current_setting('statement_timeout') as v`.execute(t.database.db)).rows[0]!.v;
const cancel = (pid: number) => t.database.cancel(pid);

describe('underLimits', () => {
  it('sets statement_timeout for the transaction only (both databases)', async () => {
    const inside = await t.database.db
      .transaction()
      .execute((trx) =>
        underLimits(
          trx,
          { deadlineMs: 1234, cancel },
          async () =>
            (await sql<{ v: string }>`select current_setting('statement_timeout') as v`.execute(trx)).rows[0]!.v,
        ),
      );
    expect(inside).toBe('1234ms');
    // Every connection of the pool afterwards (the embedded database is one session).
    const after = await Promise.all(Array.from({ length: 4 }, setting));
    expect(new Set(after)).toEqual(new Set(['0']));
  });

  it('does not start a statement whose caller is already gone (both databases)', async () => {
    let ran = false;
    const run = t.database.db.transaction().execute((trx) =>
      underLimits(trx, { deadlineMs: 1000, signal: AbortSignal.abort(), cancel }, async () => {
        ran = true;
      }),
    );
    await expect(run).rejects.toBeInstanceOf(StatementAbandoned);
    expect(ran).toBe(false);
  });

  it.skipIf(!onServer)('PostgreSQL ends a statement at its deadline (57014)', async () => {
    const err = await t.database.db
      .transaction()
      .execute((trx) => underLimits(trx, { deadlineMs: 100, cancel }, () => sql`select pg_sleep(30)`.execute(trx)))
      .catch((e: unknown) => e);
    expect(pgCode(err)).toBe(QUERY_CANCELED);
  });

  it.skipIf(!onServer)(
    'cancels the running statement in PostgreSQL when the signal fires, and stops waiting',
    async () => {
      const ctl = new AbortController();
      const run = t.database.db
        .transaction()
        .execute((trx) =>
          underLimits(trx, { deadlineMs: 60_000, signal: ctl.signal, cancel }, () =>
            sql`select pg_sleep(30) as marker_underlimits`.execute(trx),
          ),
        );
      run.catch(() => {});
      const sleeping = async () =>
        Number(
          (
            await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
      where state = 'active' and query like '%marker_underlimits%' and pid <> pg_backend_pid()`.execute(t.database.db)
          ).rows[0]!.n,
        );
      for (let i = 0; (await sleeping()) === 0; i++) {
        if (i > 2000) throw new Error('the statement never started');
        await new Promise((r) => setTimeout(r, 10));
      }
      ctl.abort();
      await expect(run).rejects.toBeInstanceOf(StatementAbandoned);
      for (let i = 0; (await sleeping()) > 0; i++) {
        if (i > 2000) throw new Error('the statement was never cancelled');
        await new Promise((r) => setTimeout(r, 10));
      }
      expect(await sleeping()).toBe(0);
    },
  );
});
