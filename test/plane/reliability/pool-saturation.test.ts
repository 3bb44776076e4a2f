import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlane, ROOT, type TestPlane } from '../harness.js';

// Found by bench/plane/mixed-load.ts: when every pooled connection was busy for longer than the
// 2 s connect time-out, the wait for a connection failed with node-postgres's "timeout exceeded when
// trying to connect", which counted as the database being away: /health said down and every request
// answered 503 db_unavailable while the database answered fine. A busy pool is now waited on (within
// a bound) and only the heartbeat, on a connection of its own, decides that the database is away.
describe.skipIf(!process.env.TEST_DATABASE_URL)('a saturated connection pool is not a database outage', () => {
  let t: TestPlane;
  beforeAll(async () => {
    t = await startPlane();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps /health up and answers no db_unavailable while every connection is busy for 3 s', async () => {
    const login = await t.plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });
    const token = login.json().token as string;
    // Every connection of the plane's pool held by a slow statement (pg_sleep), as under a load peak.
    const max = t.db.database.poolStats().max;
    const hogs = Array.from({ length: max }, () => sql`select pg_sleep(3)`.execute(t.db.database.db));
    await sleep(200);
    const me = await t.plane.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Bearer ${token}` },
    });
    const health = (await t.plane.app.inject({ method: 'GET', url: '/health' })).json();
    await Promise.all(hogs);
    const after = (await t.plane.app.inject({ method: 'GET', url: '/health' })).json();
    console.info(
      `pool saturation: /auth/me ${me.statusCode} ${me.body}; health during ${JSON.stringify(health)}, after ${JSON.stringify(after)}`,
    );
    expect(health).toEqual({ status: 'ok', database: 'up' });
    expect(me.json()).not.toEqual({ error: 'db_unavailable' });
  });
});
