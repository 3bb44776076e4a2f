import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../../src/plane/db/database.js';
import { startPlane, ROOT, type TestPlane } from '../harness.js';

let t: TestPlane;
let database: Database;
const onServer = !!process.env.TEST_DATABASE_URL;

beforeAll(async () => {
  t = await startPlane();
  // A database handle of its own (no plane jobs on it): on a server a small pool over the same
  // database, so that it can be filled; otherwise a second embedded database.
  database = onServer
    ? await openDatabase({ kind: 'postgres', url: t.db.url!, max: 3 })
    : await openDatabase({ kind: 'pglite', dir: null });
});
afterAll(async () => {
  await database?.close();
  await t?.close();
});

describe('database pool figures (max, size, idle, in_use)', () => {
  it('counts connections in use while queries run concurrently, and idle ones after', async () => {
    const max = onServer ? 3 : 1;
    expect(database.poolStats().max).toBe(max);
    // Eight transactions want a connection each and hold it until the gate opens.
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const work = Array.from({ length: 8 }, () =>
      database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await gate;
      }),
    );
    const deadline = Date.now() + 5000;
    while (database.poolStats().in_use < max && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    // Every connection of the pool is in use, never more; the other five wait.
    expect(database.poolStats()).toEqual({ max, size: max, idle: 0, in_use: max });
    open();
    await Promise.all(work);
    expect(database.poolStats()).toEqual({ max, size: max, idle: max, in_use: 0 });
  });

  it('counts a connection held by an open transaction', async () => {
    const before = database.poolStats();
    await database.db.transaction().execute(async (trx) => {
      await sql`select 1`.execute(trx);
      const during = database.poolStats();
      expect(during.in_use).toBe(before.in_use + 1);
      expect(during.idle + during.in_use).toBe(during.size);
    });
    expect(database.poolStats().in_use).toBe(before.in_use);
  });

  it('returns to zero in use after concurrent HTTP requests of the plane', async () => {
    const app = t.plane.app;
    const busy: number[] = [];
    const sampler = setInterval(() => busy.push(t.db.database.poolStats().in_use), 5);
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT })),
    );
    clearInterval(sampler);
    expect(replies.map((r) => r.statusCode)).toEqual(Array(12).fill(200));
    // (The embedded database runs each query synchronously: a timer cannot sample it busy.)
    if (onServer) expect(Math.max(...busy)).toBeGreaterThan(0);
    // Background jobs may hold a connection for a moment: wait for the pool to settle.
    const deadline = Date.now() + 3000;
    while (t.db.database.poolStats().in_use > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const s = t.db.database.poolStats();
    expect(s.in_use).toBe(0);
    expect(s.size).toBeGreaterThanOrEqual(1);
    expect(s.size).toBeLessThanOrEqual(s.max);
    expect(s.idle).toBe(s.size);
  });

  it.skipIf(!onServer)(
    'prepares parameterised queries once per connection, and survives a table changed under them',
    async () => {
      const one = await openDatabase({ kind: 'postgres', url: t.db.url!, max: 1 });
      const count = async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from pg_prepared_statements where statement = 'select * from tags where name = $1'`.execute(
            one.db,
          )
        ).rows[0]!.n;
      try {
        for (let i = 0; i < 3; i++) await sql`select * from tags where name = ${'x' + i}`.execute(one.db);
        expect(await count()).toBe(1);
        await sql`alter table tags add column bench_extra integer`.execute(t.db.database.db);
        // Inside a transaction the changed table fails the statement once (and aborts that transaction)...
        const failed = await one.db
          .transaction()
          .execute(async (trx) => {
            await sql`select * from tags where name = ${'y'}`.execute(trx);
          })
          .then(
            () => null,
            (e) => e.code,
          );
        expect(failed).toBe('0A000');
        // ...then the same connection prepares it afresh and answers.
        const r = await sql<Record<string, unknown>>`select * from tags where name = ${'y'}`.execute(one.db);
        expect(r.rows).toEqual([]);
        expect(await count()).toBe(2);
        expect(one.poolStats().size).toBe(1);
      } finally {
        await sql`alter table tags drop column if exists bench_extra`.execute(t.db.database.db);
        await one.close();
      }
    },
  );
});
