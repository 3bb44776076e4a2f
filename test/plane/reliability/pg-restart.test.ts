import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { openDatabase } from '../../../src/plane/db/database.js';
import { startPlane, ROOT, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, cameraWorld } from '../inventory.helpers.js';
import { sidOf } from './proxy.js';
import { PgCluster, clusterUnavailable } from './pg-cluster.js';

// Issue 10: PostgreSQL stopped and started for real mid-load (not a proxy cut). The shared server
// must not be stopped, so the suite runs its own throwaway cluster. PGlite lives inside the plane's
// process: there is no server to stop, so this case does not apply to the embedded database.
const unavailable = await clusterUnavailable();
if (unavailable) console.warn(`pg-restart: skipped: ${unavailable}`);

interface Outcome {
  status: number;
  body: any;
  started: number;
  ended: number;
  sid?: string;
}

describe.skipIf(unavailable !== null)('PostgreSQL stopped and started for real under write load (own cluster)', () => {
  let cluster: PgCluster;
  let tp: TestPlane;
  let mod: Client;
  let cam: string;

  beforeAll(async () => {
    cluster = await PgCluster.create();
    const admin = postgres(cluster.url(), { max: 1, onnotice: () => {} });
    await admin.unsafe('create database argus');
    await admin.end();
    const url = cluster.url('argus');
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
    await cluster?.destroy();
  });

  const inject = (method: 'GET' | 'POST', url: string, payload?: unknown, token?: string) =>
    tp.plane.app.inject({
      method,
      url,
      ...(payload ? { payload: payload as any } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });

  it('loses no acknowledged write, answers only 503 db_unavailable while stopped, and is back within 2 s of the start', async () => {
    const probe = (await inject('POST', '/api/v1/auth/login', ROOT)).json().token as string;
    const outcomes: Outcome[] = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const started = Date.now();
        const r = await inject('POST', '/api/v1/auth/login', ROOT);
        const o: Outcome = { status: r.statusCode, body: r.json(), started, ended: Date.now() };
        if (r.statusCode === 200) o.sid = sidOf(o.body.token);
        outcomes.push(o);
        if (r.statusCode !== 200) await sleep(25);
      }
    };
    // Event intake too: batches of 20, each acknowledged batch's ids must all be stored.
    const events: Array<{ status: number; body: any; ids?: string[] }> = [];
    const intake = async () => {
      while (!stop) {
        const r = await mod.post('/api/v1/events', {
          events: Array.from({ length: 20 }, () => ({
            occurred_at: new Date().toISOString(),
            detector: 'fault.restart',
            camera_id: cam,
          })),
        });
        events.push(
          r.status === 200
            ? { status: 200, body: null, ids: r.body.results.map((i: any) => i.id) }
            : { status: r.status, body: r.body },
        );
        if (r.status !== 200) await sleep(25);
      }
    };
    const workers = [...Array.from({ length: 6 }, worker), intake(), intake()];
    const recoveries: number[] = [];
    const health: Array<{ status: number; database: string }> = [];
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 100 && outcomes.filter((o) => o.status === 200).length < 5 * (round + 1); i++)
        await sleep(50);
      await cluster.stop(round === 0 ? 'fast' : 'immediate');
      const stoppedAt = Date.now();
      while (Date.now() - stoppedAt < 1200) {
        const h = await inject('GET', '/health');
        health.push({ status: h.statusCode, database: h.json().database });
        await sleep(100);
      }
      await cluster.start();
      const startedAt = Date.now();
      for (;;) {
        const r = await inject('GET', '/api/v1/auth/me', undefined, probe);
        if (r.statusCode === 200) {
          recoveries.push(Date.now() - startedAt);
          break;
        }
        expect(r.statusCode, r.body).toBe(503);
        if (Date.now() - startedAt > 10_000) {
          recoveries.push(Infinity);
          break;
        }
        await sleep(50);
      }
    }
    await sleep(500);
    stop = true;
    await Promise.all(workers);

    const acked = outcomes.filter((o) => o.sid).map((o) => o.sid!);
    const failed = outcomes.filter((o) => o.status !== 200);
    const ackedEvents = events.flatMap((e) => e.ids ?? []);
    const summary = JSON.stringify({
      recoveries,
      acked: acked.length,
      failed: failed.length,
      statuses: [...new Set(outcomes.map((o) => o.status))],
      eventsAcked: ackedEvents.length,
      intakeStatuses: [...new Set(events.map((e) => e.status))],
    });
    console.info(`pg-restart: ${summary}, slowest request ${Math.max(...outcomes.map((o) => o.ended - o.started))} ms`);
    expect([...new Set(outcomes.map((o) => o.status))].sort(), summary).toEqual([200, 503]);
    for (const o of failed) expect(o.body).toEqual({ error: 'db_unavailable' });
    expect([...new Set(events.map((e) => e.status))].sort(), summary).toEqual([200, 503]);
    for (const e of events.filter((x) => x.status !== 200)) expect(e.body).toEqual({ error: 'db_unavailable' });
    for (const h of health) expect(h.status).toBe(200);
    expect(health.some((h) => h.database === 'down')).toBe(true);
    for (const ms of recoveries) expect(ms, summary).toBeLessThanOrEqual(2000);

    const direct = postgres(cluster.url('argus'), { max: 1, onnotice: () => {} });
    try {
      const [s] = await direct`select count(*)::int as n from sessions where id = any(${acked}::uuid[])`;
      expect(s!.n).toBe(acked.length);
      const [a] =
        await direct`select count(distinct object_id)::int as n from audit where action = 'auth.login' and object_id = any(${acked}::uuid[])`;
      expect(a!.n).toBe(acked.length);
      const [e] = await direct`select count(*)::int as n from events where id = any(${ackedEvents}::uuid[])`;
      expect(e!.n).toBe(ackedEvents.length);
    } finally {
      await direct.end();
    }
  });
});
