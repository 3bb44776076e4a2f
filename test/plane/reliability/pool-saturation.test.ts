import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlane, ROOT, type TestPlane } from '../harness.js';

// Found by bench/plane/mixed-load.ts: when every pooled connection is busy for longer than the
// 2 s connect time-out, the wait for a connection fails with node-postgres's "timeout exceeded when
// trying to connect", which counts as the database being away: /health says down and every
// request answers 503 db_unavailable while the database answers fine. Known bug
// (docs/fault-suites.md, "A busy pool is taken for a database outage"): out of CI until fixed.
describe.skipIf(!process.env.TEST_DATABASE_URL || !process.env.ARGUS_KNOWN_BUGS)('a saturated connection pool is not a database outage', () => {
  let t: TestPlane;
  beforeAll(async () => { t = await startPlane(); });
  afterAll(async () => { await t?.close(); });

  it('keeps /health up and answers no db_unavailable while every connection is busy for 3 s', async () => {
    const login = await t.plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });
    const token = login.json().token as string;
    // Every connection of the plane's pool held by a slow statement (pg_sleep), as under a load peak.
    const max = t.db.database.poolStats().max;
    const hogs = Array.from({ length: max }, () => sql`select pg_sleep(3)`.execute(t.db.database.db));
    await sleep(200);
    const me = await t.plane.app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: { authorization: `Bearer ${token}` } });
    const health = (await t.plane.app.inject({ method: 'GET', url: '/health' })).json();
    await Promise.all(hogs);
    const after = (await t.plane.app.inject({ method: 'GET', url: '/health' })).json();
    console.info(`pool saturation: /auth/me ${me.statusCode} ${me.body}; health during ${JSON.stringify(health)}, after ${JSON.stringify(after)}`);
    expect(health).toEqual({ status: 'ok', database: 'up' });
    expect(me.json()).not.toEqual({ error: 'db_unavailable' });
  });
});
