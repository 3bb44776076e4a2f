import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase, type Database } from '../../../src/plane/db/database.js';
import { buildApp, makeLogger, type Plane } from '../../../src/plane/app.js';
import { systemClock } from '../../../src/common/clock.js';
import { freshDatabase, testConfig, LogCapture, ROOT, type TestDb } from '../harness.js';
import { TcpProxy, sidOf } from './proxy.js';

const BASE = process.env.TEST_DATABASE_URL;

interface Outcome {
  status: number;
  body: any;
  started: number;
  ended: number;
  sid?: string;
}

async function plainOn(database: Database): Promise<{ plane: Plane; logs: LogCapture }> {
  const logs = new LogCapture();
  const plane = await buildApp({
    config: testConfig(),
    database,
    clock: systemClock,
    logger: makeLogger('info', logs),
  });
  await plane.app.ready();
  return { plane, logs };
}

async function health(plane: Plane) {
  const r = await plane.app.inject({ method: 'GET', url: '/health' });
  return { status: r.statusCode, body: r.json() };
}

// Cutting a TCP connection needs a server behind a proxy; PGlite lives in this process.
describe.skipIf(!BASE)('database outage under write load (TCP proxy cut, PostgreSQL server)', () => {
  let db: TestDb;
  let proxy: TcpProxy;
  let database: Database;
  let plane: Plane;

  beforeAll(async () => {
    db = await freshDatabase();
    proxy = TcpProxy.forUrl(db.url!);
    await proxy.start();
    database = await openDatabase({ kind: 'postgres', url: proxy.urlThrough(db.url!) });
    ({ plane } = await plainOn(database));
    await plane.ready();
  });
  afterAll(async () => {
    await plane?.close();
    await database?.close().catch(() => {});
    await proxy?.close();
    await db?.drop();
  });

  it('keeps every acknowledged write, answers only 503 db_unavailable while cut, and recovers within 2 s', async () => {
    const anchor = await plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });
    expect(anchor.statusCode).toBe(200);
    const probeToken = anchor.json().token as string;
    expect(proxy.accepted).toBeGreaterThan(0);

    const outcomes: Outcome[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const started = Date.now();
        const r = await plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });
        const o: Outcome = { status: r.statusCode, body: r.json(), started, ended: Date.now() };
        if (r.statusCode === 200) o.sid = sidOf(o.body.token);
        outcomes.push(o);
        if (r.statusCode !== 200) await sleep(25);
      }
    };
    const workers = Array.from({ length: 6 }, worker);

    // Cut only once writes are being acknowledged (a loaded machine makes the first logins slow).
    for (let i = 0; i < 200 && !outcomes.some((o) => o.status === 200); i++) await sleep(50);
    await sleep(200);
    const cutAt = Date.now();
    await proxy.cut();
    const healthDuring: Array<{ status: number; body: any }> = [];
    while (Date.now() - cutAt < 1500) {
      healthDuring.push(await health(plane));
      await sleep(100);
    }
    const restoredAt = Date.now();
    await proxy.restore();
    let back: number | null = null;
    while (Date.now() - restoredAt < 5000) {
      const r = await plane.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${probeToken}` },
      });
      if (r.statusCode === 200) {
        back = Date.now() - restoredAt;
        break;
      }
      expect(r.statusCode).toBe(503);
      await sleep(50);
    }
    await sleep(1000);
    stop = true;
    await Promise.all(workers);

    // Only 200 or 503 db_unavailable, never a 500 and never a hang.
    const statuses = new Set(outcomes.map((o) => o.status));
    const summary = JSON.stringify({
      back,
      outcomes: outcomes.map((o) => [o.status, o.started - cutAt, o.ended - o.started]),
    });
    expect([...statuses].sort(), summary).toEqual([200, 503]);
    for (const o of outcomes.filter((x) => x.status === 503)) expect(o.body).toEqual({ error: 'db_unavailable' });
    expect(Math.max(...outcomes.map((o) => o.ended - o.started)), summary).toBeLessThan(6000);
    expect(
      outcomes.some((o) => o.status === 200 && o.ended < cutAt),
      summary,
    ).toBe(true);
    expect(
      outcomes.some((o) => o.status === 200 && o.started > restoredAt),
      summary,
    ).toBe(true);

    // /health answered all along and saw the outage; it is up again now.
    for (const h of healthDuring) expect(h.status).toBe(200);
    expect(
      healthDuring.some((h) => h.body.database === 'down'),
      JSON.stringify(healthDuring),
    ).toBe(true);
    expect(await health(plane)).toEqual({ status: 200, body: { status: 'ok', database: 'up' } });
    expect(back, summary).not.toBeNull();
    expect(back!, summary).toBeLessThan(2000);

    // Every acknowledged login is in the database: its session row and its audit record.
    const acked = outcomes.filter((o) => o.sid).map((o) => o.sid!);
    expect(acked.length).toBeGreaterThan(5);
    const sessions = await database.db.selectFrom('sessions').select('id').where('id', 'in', acked).execute();
    expect(sessions.length).toBe(acked.length);
    const audited = await database.db
      .selectFrom('audit')
      .select('object_id')
      .where('action', '=', 'auth.login')
      .where('object_id', 'in', acked)
      .execute();
    expect(new Set(audited.map((a) => a.object_id)).size).toBe(acked.length);
  });
});

describe.skipIf(!BASE)('a plane started while the database is unreachable', () => {
  it('stays up (health answers, API 503) and becomes ready by itself when the database returns', async () => {
    const db = await freshDatabase();
    const proxy = TcpProxy.forUrl(db.url!);
    await proxy.start();
    await proxy.cut();
    const database = await openDatabase({ kind: 'postgres', url: proxy.urlThrough(db.url!) });
    const { plane } = await plainOn(database);
    try {
      for (let i = 0; i < 3; i++) {
        expect(await health(plane)).toEqual({ status: 200, body: { status: 'ok', database: 'down' } });
        const r = await plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });
        expect(r.statusCode).toBe(503);
        expect(r.json()).toEqual({ error: 'db_unavailable' });
        const me = await plane.app.inject({
          method: 'GET',
          url: '/api/v1/auth/me',
          headers: { authorization: 'Bearer x.y.z' },
        });
        expect(me.statusCode).toBe(401);
        await sleep(400);
      }
      await proxy.restore();
      await plane.ready();
      expect(await health(plane)).toEqual({ status: 200, body: { status: 'ok', database: 'up' } });
      const r = await plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });
      expect(r.statusCode).toBe(200);
      const me = await plane.app.inject({
        method: 'GET',
        url: '/api/v1/auth/me',
        headers: { authorization: `Bearer ${r.json().token}` },
      });
      expect(me.statusCode).toBe(200);
    } finally {
      await plane.close();
      await database.close().catch(() => {});
      await proxy.close();
      await db.drop();
    }
  });
});
