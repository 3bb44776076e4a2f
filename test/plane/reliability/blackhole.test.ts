import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { openDatabase } from '../../../src/plane/db/database.js';
import { freshDatabase, startPlane, ROOT, type TestDb, type TestPlane } from '../harness.js';
import { sidOf } from './proxy.js';
import { BlackholeProxy } from './blackhole-proxy.js';

const BASE = process.env.TEST_DATABASE_URL;

interface Outcome {
  status: number;
  body: any;
  started: number;
  ended: number;
  sid?: string;
}

/**
 * How long one request may take while the database is silent: the 2 s connect time-out plus
 * slack for a loaded machine (issue 25: the suite holds under load). What is tested is that no
 * request hangs on the silent server (without the heartbeat they waited for minutes); the figures
 * themselves are printed (`blackhole: {...}`), not asserted tightly.
 */
const REQUEST_BOUND_MS = 15_000;
/** The plane is ready again within 2 s of the server's return on a quiet machine (issue 10); the bound allows a loaded one. */
const BACK_BOUND_MS = 6_000;

// A blackhole needs a server behind a TCP proxy; the embedded database has no connection to lose.
// Before the database heartbeat (src/plane/db/heartbeat.ts) requests hung here for good and the
// plane never came back after the heal (docs/fault-suites.md).
describe.skipIf(!BASE)(
  'database connection blackholed under write load (proxy stops forwarding, nothing closed)',
  () => {
    let db: TestDb;
    let proxy: BlackholeProxy;
    let tp: TestPlane;

    beforeAll(async () => {
      db = await freshDatabase();
      proxy = BlackholeProxy.forUrl(db.url!);
      await proxy.start();
      const url = proxy.urlThrough(db.url!);
      const database = await openDatabase({ kind: 'postgres', url });
      tp = await startPlane({ db: { database, url, drop: () => database.close() } });
    });
    afterAll(async () => {
      await proxy?.close();
      await tp?.close();
      await tp?.db.database.close().catch(() => {});
      await db?.drop();
    });

    const inject = (method: 'GET' | 'POST', url: string, payload?: unknown, token?: string) =>
      tp.plane.app.inject({
        method,
        url,
        ...(payload ? { payload: payload as any } : {}),
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });

    it('answers only 503 within a bounded time while silent, loses no acknowledged write, and is back within 2 s of healing', async () => {
      const probe = (await inject('POST', '/api/v1/auth/login', ROOT)).json().token as string;
      const outcomes: Outcome[] = [];
      let stop = false;
      const worker = async () => {
        while (!stop) {
          const started = Date.now();
          const r = await Promise.race([
            inject('POST', '/api/v1/auth/login', ROOT).then((x) => ({ status: x.statusCode, body: x.json() })),
            sleep(15_000).then(() => ({ status: 0, body: 'hung for 15 s' })),
          ]);
          const o: Outcome = { ...r, started, ended: Date.now() };
          if (r.status === 200) o.sid = sidOf(o.body.token);
          outcomes.push(o);
          if (r.status !== 200) await sleep(25);
        }
      };
      const workers = Array.from({ length: 6 }, worker);
      for (let i = 0; i < 100 && outcomes.filter((o) => o.status === 200).length < 5; i++) await sleep(50);

      proxy.blackhole();
      const holedAt = Date.now();
      const health: Array<{ status: number; database: string; ms: number }> = [];
      while (Date.now() - holedAt < 4000) {
        const t = Date.now();
        const h = await inject('GET', '/health');
        health.push({ status: h.statusCode, database: h.json().database, ms: Date.now() - t });
        await sleep(200);
      }
      proxy.heal();
      const healedAt = Date.now();
      let back = Infinity;
      for (;;) {
        const r = await Promise.race([
          inject('GET', '/api/v1/auth/me', undefined, probe),
          sleep(15_000).then(() => null),
        ]);
        if (r?.statusCode === 200) {
          back = Date.now() - healedAt;
          break;
        }
        if (Date.now() - healedAt > 15_000) break;
        await sleep(50);
      }
      await sleep(1000);
      stop = true;
      await Promise.all(workers);

      const acked = outcomes.filter((o) => o.sid).map((o) => o.sid!);
      const slowest = Math.max(...outcomes.map((o) => o.ended - o.started));
      const summary = JSON.stringify({
        back,
        slowest,
        acked: acked.length,
        statuses: [...new Set(outcomes.map((o) => o.status))],
        health: health.slice(0, 6),
      });
      console.info(`blackhole: ${summary}`);
      expect([...new Set(outcomes.map((o) => o.status))].sort(), summary).toEqual([200, 503]);
      for (const o of outcomes.filter((x) => x.status === 503)) expect(o.body).toEqual({ error: 'db_unavailable' });
      expect(slowest, summary).toBeLessThanOrEqual(REQUEST_BOUND_MS);
      for (const h of health) expect(h.status).toBe(200);
      expect(
        health.some((h) => h.database === 'down'),
        summary,
      ).toBe(true);
      expect(back, summary).toBeLessThanOrEqual(BACK_BOUND_MS);

      const direct = postgres(db.url!, { max: 1, onnotice: () => {} });
      try {
        const [s] = await direct`select count(*)::int as n from sessions where id = any(${acked}::uuid[])`;
        expect(s!.n).toBe(acked.length);
        const [a] =
          await direct`select count(distinct object_id)::int as n from audit where action = 'auth.login' and object_id = any(${acked}::uuid[])`;
        expect(a!.n).toBe(acked.length);
      } finally {
        await direct.end();
      }
    });
  },
);
