import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { startPlane, ROOT, type TestPlane } from '../harness.js';

// A server that answers but refuses writes (a standby, a demoted or read-only primary) refuses
// them with SQLSTATE 25006: that is the database the plane writes to being unavailable (503
// db_unavailable, issue 26), not an internal error. The embedded database cannot be made read-only
// from outside, so this needs a server.
const BASE = process.env.TEST_DATABASE_URL;
if (!BASE) console.warn('read-only: skipped: needs TEST_DATABASE_URL (a server to make read-only)');

describe.skipIf(!BASE)('a database that refuses writes (25006)', () => {
  let tp: TestPlane;
  let admin: postgres.Sql;
  let name = '';

  beforeAll(async () => {
    tp = await startPlane();
    name = new URL(tp.db.url!).pathname.slice(1);
    admin = postgres(BASE!, { max: 1, onnotice: () => {} });
  }, 60_000);
  afterAll(async () => {
    await admin?.unsafe(`alter database ${name} reset default_transaction_read_only`).catch(() => {});
    await admin?.end();
    await tp?.close();
  });

  /** New sessions of the plane's database start read-only (or not); its present ones are ended. */
  const readOnly = async (on: boolean) => {
    await admin.unsafe(
      on
        ? `alter database ${name} set default_transaction_read_only = on`
        : `alter database ${name} reset default_transaction_read_only`,
    );
    await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
  };
  const login = () => tp.plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });

  it('answers a refused write 503 db_unavailable, and writes again once the server takes them', async () => {
    expect((await login()).statusCode).toBe(200);
    await readOnly(true);
    const answers: Array<{ status: number; body: unknown }> = [];
    for (let i = 0; i < 20; i++) {
      const r = await login();
      answers.push({ status: r.statusCode, body: r.json() });
      await sleep(100);
    }
    for (const a of answers) expect(a).toEqual({ status: 503, body: { error: 'db_unavailable' } });
    // Not only the cut sessions: writes refused on the reopened ones were among them.
    expect(tp.logs.text).toContain('read-only transaction');

    await readOnly(false);
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await login()).statusCode;
      if (status !== 200) await sleep(100);
    }
    expect(status).toBe(200);
  }, 30_000);
});
