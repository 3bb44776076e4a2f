import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { openDatabase } from '../../../src/plane/db/database.js';
import { startPlane, ROOT, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, cameraWorld } from '../inventory.helpers.js';
import { sidOf } from '../reliability/proxy.js';
import { clusterUnavailable } from '../reliability/pg-cluster.js';
import { PgPair } from './pg-pair.js';

// Issue 26, failover: a primary and a synchronous hot standby of the test's own; the plane's
// [database] url lists both (the standby first, so even the start must look for the primary).
// The primary's postmaster is killed under a steady load of logins (session + audit rows) and
// event intake, the standby promoted: the plane must follow it by itself, answering only
// 503 db_unavailable in between, and lose no acknowledged write.
const unavailable = await clusterUnavailable();
if (unavailable) console.warn(`failover: skipped: ${unavailable} (PostgreSQL 15 binaries needed)`);

describe.skipIf(unavailable !== null)('failover: primary killed, standby promoted, plane follows (own servers)', () => {
  let pair: PgPair;
  let tp: TestPlane;
  let mod: Client;
  let cam: string;

  beforeAll(async () => {
    pair = await PgPair.create();
    const admin = postgres(pair.url(pair.primaryPort), { max: 1, onnotice: () => {} });
    await admin.unsafe('create database argus');
    await admin.end();
    const url = `postgres://postgres@127.0.0.1:${pair.standbyPort},127.0.0.1:${pair.primaryPort}/argus`;
    const database = await openDatabase({ kind: 'postgres', url });
    tp = await startPlane({ db: { database, url, drop: () => database.close() } });
    const x = await tenants(tp);
    const world = await cameraWorld(tp, x);
    cam = await world.camera(x.a.admin);
    mod = await world.moduleToken(x.a.admin, 1_000_000);
  }, 120_000);
  afterAll(async () => {
    await tp?.close();
    await tp?.db.database.close().catch(() => {});
    await pair?.destroy();
  });

  const login = () => tp.plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });

  it('writes again on the promoted standby without a restart, 503 db_unavailable in between, no acknowledged write lost', async () => {
    const logins: Array<{ status: number; body: any; at: number; sid?: string }> = [];
    const events: Array<{ status: number; body: any; at: number; ids?: string[] }> = [];
    let stop = false;
    const loginWorker = async () => {
      while (!stop) {
        const r = await login();
        const o: (typeof logins)[number] = { status: r.statusCode, body: r.json(), at: Date.now() };
        if (r.statusCode === 200) o.sid = sidOf(o.body.token);
        logins.push(o);
        if (r.statusCode !== 200) await sleep(25);
      }
    };
    const intake = async () => {
      while (!stop) {
        const r = await mod.post('/api/v1/events', {
          events: Array.from({ length: 10 }, () => ({
            occurred_at: new Date().toISOString(),
            detector: 'fault.failover',
            camera_id: cam,
          })),
        });
        events.push(
          r.status === 200
            ? { status: 200, body: null, at: Date.now(), ids: r.body.results.map((i: any) => i.id) }
            : { status: r.status, body: r.body, at: Date.now() },
        );
        if (r.status !== 200) await sleep(25);
      }
    };
    // The LISTEN connection must follow too: a notification sent on the new primary reaches the plane.
    const heard: string[] = [];
    await tp.db.database.listen('argus_failover_probe', (payload) => heard.push(payload));
    const workers = [loginWorker(), loginWorker(), loginWorker(), intake(), intake()];
    while (logins.filter((o) => o.sid).length < 20) await sleep(50);

    await pair.killPrimary();
    const killedAt = Date.now();
    // As an operator or a failover manager would: a moment to notice, then the promotion.
    await sleep(1000);
    const health = (await tp.plane.app.inject({ method: 'GET', url: '/health' })).json().database;
    await pair.promoteStandby();
    const promotedAt = Date.now();
    let writesAgainAt = 0;
    while (Date.now() - promotedAt < 20_000) {
      if ((await login()).statusCode === 200) {
        writesAgainAt = Date.now();
        break;
      }
      await sleep(50);
    }
    await sleep(1000);
    stop = true;
    await Promise.all(workers);

    const acked = logins.filter((o) => o.sid).map((o) => o.sid!);
    const ackedEvents = events.flatMap((e) => e.ids ?? []);
    const failedLogins = logins.filter((o) => o.status !== 200);
    const failedIntake = events.filter((e) => e.status !== 200);
    const figures = {
      writes_again_after_promotion_secs: writesAgainAt ? (writesAgainAt - promotedAt) / 1000 : null,
      writes_again_after_kill_secs: writesAgainAt ? (writesAgainAt - killedAt) / 1000 : null,
      health_while_down: health,
      logins_acked: acked.length,
      logins_failed: failedLogins.length,
      event_batches_acked: events.length - failedIntake.length,
      events_acked: ackedEvents.length,
      event_batches_failed: failedIntake.length,
      statuses: [...new Set([...logins, ...events].map((o) => o.status))].sort(),
      acked_after_promotion: logins.filter((o) => o.sid && o.at > promotedAt).length,
    };
    expect(writesAgainAt, JSON.stringify(figures)).toBeGreaterThan(0);
    expect(health).toBe('down');
    for (const o of [...failedLogins, ...failedIntake]) expect(o.body).toEqual({ error: 'db_unavailable' });
    expect(figures.acked_after_promotion).toBeGreaterThan(0);

    // Every acknowledged write is on the promoted standby: the session, its login audit, each event.
    const direct = postgres(pair.url(pair.standbyPort, 'argus'), { max: 1, onnotice: () => {} });
    try {
      const [s] = await direct`select count(*)::int as n from sessions where id = any(${acked}::uuid[])`;
      const [a] =
        await direct`select count(distinct object_id)::int as n from audit where action = 'auth.login' and object_id = any(${acked}::uuid[])`;
      const [e] = await direct`select count(*)::int as n from events where id = any(${ackedEvents}::uuid[])`;
      const lost = { sessions: acked.length - s!.n, audit: acked.length - a!.n, events: ackedEvents.length - e!.n };
      for (let i = 0; i < 100 && !heard.length; i++) {
        await direct`select pg_notify('argus_failover_probe', 'after')`;
        await sleep(100);
      }
      console.info(`failover: ${JSON.stringify({ ...figures, acknowledged_writes_lost: lost, heard })}`);
      expect(lost).toEqual({ sessions: 0, audit: 0, events: 0 });
      expect(heard[0]).toBe('after');
    } finally {
      await direct.end();
    }
  }, 60_000);
});
