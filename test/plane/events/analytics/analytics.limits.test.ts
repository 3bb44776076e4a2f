import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';
import type { TestPlane } from '../../harness.js';
import { tenants, type Tenants } from '../../inventory.helpers.js';
import { analyticsStatements, lockEvents, startAnalyticsPlane, until } from './analytics.load.helpers.js';

// Issue 25, finding 1: analytics run under slots (429 analytics_busy), a deadline PostgreSQL enforces
// (503 analytics_deadline) and are cancelled in PostgreSQL when their client goes away. A lock held
// on the events table stands for a slow statement: the analytics statement waits on it for as long
// as the test wants, however fast the machine is. On the server only (the embedded database has no
// second session to hold a lock, and runs a statement on the plane's own thread).
const HOUR_MS = 3600_000;
const body = (over: Record<string, unknown> = {}) => ({
  from: new Date(Date.now() - 24 * HOUR_MS).toISOString(),
  to: new Date().toISOString(),
  measure: 'count_events',
  bucket: 'hour',
  ...over,
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('analytics limits on the server', () => {
  let admin: postgres.Sql;
  beforeAll(() => {
    admin = postgres(process.env.TEST_DATABASE_URL!, { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await admin?.end();
  });

  describe('slots', () => {
    let t: TestPlane;
    let x: Tenants;
    beforeAll(async () => {
      t = await startAnalyticsPlane({ processSlots: 2, orgSlots: 1, deadlineMs: 60_000 });
      x = await tenants(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers 429 analytics_busy with retry_after and Retry-After, for the organisation and then the process', async () => {
      const analytics = t.plane.services.events.analytics;
      const lock = await lockEvents(t.db.url!);
      try {
        const first = x.a.operator.post('/api/v1/event-analytics/query', body());
        await until(() => analytics.slotsInUse(x.a.orgId) === 1, 'organisation A holds a slot');
        const org = await x.a.admin.post('/api/v1/event-analytics/query', body());
        expect(org.status, org.text).toBe(429);
        expect(org.body).toEqual({ error: 'analytics_busy', scope: 'org', retry_after: 1 });
        expect(org.headers['retry-after']).toBe('1');
        // A batch holds one slot for all its queries: refused as a whole.
        const batch = await x.a.admin.post('/api/v1/event-analytics/query-batch', {
          queries: [{ key: 'k', query: body() }],
        });
        expect(batch.status, batch.text).toBe(429);
        expect(batch.body).toMatchObject({ error: 'analytics_busy', scope: 'org' });
        // Organisation B still finds the process's other slot; then the process has none left.
        const second = x.b.operator.post('/api/v1/event-analytics/query', body());
        await until(() => analytics.slotsInUse() === 2, 'the process holds both slots');
        const global = await x.root.post('/api/v1/event-analytics/query', body());
        expect(global.status, global.text).toBe(429);
        expect(global.body).toEqual({ error: 'analytics_busy', scope: 'global', retry_after: 1 });
        // The feed is no analytics: it only waits for the lock like any reader of events would.
        await lock.release();
        expect((await first).status).toBe(200);
        expect((await second).status).toBe(200);
      } finally {
        await lock.release().catch(() => {});
      }
      expect(analytics.slotsInUse()).toBe(0);
      expect((await x.a.admin.post('/api/v1/event-analytics/query', body())).status).toBe(200);
    });
  });

  describe('deadline', () => {
    let t: TestPlane;
    let x: Tenants;
    beforeAll(async () => {
      t = await startAnalyticsPlane({ deadlineMs: 200 });
      x = await tenants(t);
    });
    afterAll(async () => {
      await t?.close();
    });

    it('cancels the statement in PostgreSQL at its deadline: 503 analytics_deadline with retry_after, the database still up', async () => {
      const lock = await lockEvents(t.db.url!);
      try {
        const r = await x.a.admin.post('/api/v1/event-analytics/query', body());
        expect(r.status, r.text).toBe(503);
        expect(r.body).toEqual({ error: 'analytics_deadline', retry_after: 1 });
        expect(r.headers['retry-after']).toBe('1');
        // A batch's deadline fails the whole batch (document 2: only 403 and 5xx do).
        const batch = await x.a.admin.post('/api/v1/event-analytics/query-batch', {
          queries: [{ key: 'k', query: body() }],
        });
        expect(batch.status, batch.text).toBe(503);
        expect(batch.body).toMatchObject({ error: 'analytics_deadline' });
        // Nothing of the cancelled statements runs on.
        expect(await analyticsStatements(admin, t.db.url!)).toEqual([]);
      } finally {
        await lock.release();
      }
      expect(t.plane.services.health.isUp).toBe(true);
      expect(t.plane.services.events.analytics.slotsInUse()).toBe(0);
      // SET LOCAL: the pooled connections did not keep the deadline.
      const settings = await Promise.all(
        Array.from({ length: 10 }, () =>
          t.db.database.withSession((s) => s.query<{ v: string }>(`select current_setting('statement_timeout') as v`)),
        ),
      );
      expect(new Set(settings.map((rows) => rows[0]!.v))).toEqual(new Set(['0']));
      expect((await x.a.admin.post('/api/v1/event-analytics/query', body())).status).toBe(200);
    });
  });

  describe('a client that goes away', () => {
    let t: TestPlane;
    let x: Tenants;
    let base: URL;
    beforeAll(async () => {
      t = await startAnalyticsPlane({ deadlineMs: 60_000 });
      x = await tenants(t);
      await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
      base = new URL(`http://127.0.0.1:${(t.plane.app.server.address() as AddressInfo).port}`);
    });
    afterAll(async () => {
      await t?.close();
    });

    it.each(['query', 'query-batch'])(
      '%s: its statement is cancelled in PostgreSQL, its slot given back',
      async (route) => {
        const payload = JSON.stringify(
          route === 'query'
            ? body()
            : {
                queries: [
                  { key: 'a', query: body() },
                  { key: 'b', query: body() },
                ],
              },
        );
        const lock = await lockEvents(t.db.url!);
        try {
          const req = http.request(new URL(`/api/v1/event-analytics/${route}`, base), {
            method: 'POST',
            headers: {
              authorization: `Bearer ${x.a.admin.token}`,
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(payload),
            },
          });
          req.on('error', () => {});
          req.end(payload);
          await until(
            async () => (await analyticsStatements(admin, t.db.url!)).some((s) => s.wait === 'Lock'),
            'the statement waits on the lock',
          );
          req.destroy();
          // Gone while the lock is still held: cancelled, not finished; and the batch ran no further query.
          await until(
            async () => (await analyticsStatements(admin, t.db.url!)).length === 0,
            'the statement is cancelled',
          );
          await until(() => t.plane.services.events.analytics.slotsInUse() === 0, 'the slot is given back');
        } finally {
          await lock.release();
        }
        expect(t.plane.services.health.isUp).toBe(true);
      },
    );
  });
});
