import { expect } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { openDatabase } from '../../../src/plane/db/database.js';
import { startPlane, ROOT, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, cameraWorld } from '../inventory.helpers.js';
import { sidOf } from '../reliability/proxy.js';
import { SseReader } from '../sse-client.js';

/**
 * What the failover tests share (issue 26): a plane on a primary and its synchronous standby, a
 * steady write load of logins (session + audit rows) and event intake, SSE clients of the event
 * stream, and the checks after the primary is lost: writes again without a plane restart, only
 * 503 db_unavailable in between, no acknowledged write lost, streams without a gap. How the
 * primary is lost and the standby promoted is each test's own (failover.test.ts: pg_ctl promote;
 * auto-failover.test.ts: pg_auto_failover).
 */
export interface LoadedPlane {
  tp: TestPlane;
  base: string;
  admin: Client;
  mod: Client;
  cam: string;
}

/** Creates the `argus` database on the primary (`adminUrl`), then a plane on `url` with a tenant and a camera. */
export async function planeOn(adminUrl: string, url: string): Promise<LoadedPlane> {
  const server = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await server.unsafe('create database argus');
  await server.end();
  const database = await openDatabase({ kind: 'postgres', url });
  const tp = await startPlane({ db: { database, url, drop: () => database.close() } });
  const base = await tp.plane.app.listen({ host: '127.0.0.1', port: 0 });
  const x = await tenants(tp);
  const world = await cameraWorld(tp, x);
  const cam = await world.camera(x.a.admin);
  const mod = await world.moduleToken(x.a.admin, 1_000_000);
  return { tp, base, admin: x.a.admin, mod, cam };
}

export async function closePlane(p: LoadedPlane | undefined): Promise<void> {
  await p?.tp.close();
  await p?.tp.db.database.close().catch(() => {});
}

/** An event stream that reopens with Last-Event-ID when it ends, keeping what it saw. */
async function follow(p: LoadedPlane) {
  const seen = new Set<string>();
  let duplicates = 0;
  let reopened = 0;
  let resync = 0;
  let stopped = false;
  let lastId: string | undefined;
  const open = (last?: string) =>
    SseReader.open(`${p.base}/api/v1/events/stream`, {
      authorization: `Bearer ${p.admin.token}`,
      ...(last ? { 'last-event-id': last } : {}),
    });
  let reader = await open();
  void (async () => {
    let read = 0;
    while (!stopped) {
      for (const item of reader.items.slice(read)) {
        if (item.kind === 'comment') {
          if (item.text.startsWith('resync-required')) resync++;
          continue;
        }
        if (seen.has(item.data.id)) duplicates++;
        seen.add(item.data.id);
        lastId = item.id;
      }
      read = reader.items.length;
      if (reader.ended && !stopped) {
        reopened++;
        read = 0;
        await sleep(100);
        reader = await open(lastId).catch(() => reader);
        continue;
      }
      await sleep(20);
    }
    reader.close();
  })();
  return {
    seen,
    stop: () => {
      stopped = true;
    },
    reopened: () => reopened,
    resync: () => resync,
    duplicates: () => duplicates,
  };
}

/** How the primary was lost, as the test's `fail` step reports it. */
export interface Failover {
  killedAt: number;
  /** The database state /health gave while the primary was gone and nothing was promoted yet. */
  health: unknown;
  /** When the test itself promoted the standby (pg_ctl promote); absent when a manager did. */
  promotedAt?: number;
}

/**
 * The load, the loss of the primary (`fail`), then every check. `writesAgainWithinMs` bounds the
 * wait for a successful login, from the promotion (or from the kill, when a manager promotes):
 * a hang bound, not a speed check. `survivorUrl` names the promoted server's `argus` database,
 * read directly for the writes the plane acknowledged. Returns the figures it printed.
 */
export async function failoverUnderLoad(
  p: LoadedPlane,
  o: {
    label: string;
    fail: () => Promise<Failover>;
    writesAgainWithinMs: number;
    survivorUrl: () => string | Promise<string>;
  },
): Promise<Record<string, unknown>> {
  const login = () => p.tp.plane.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: ROOT });
  const logins: Array<{ status: number; body: any; at: number; sid?: string }> = [];
  const events: Array<{ status: number; body: any; at: number; ids?: string[] }> = [];
  let stop = false;
  const loginWorker = async () => {
    while (!stop) {
      const r = await login();
      const e: (typeof logins)[number] = { status: r.statusCode, body: r.json(), at: Date.now() };
      if (r.statusCode === 200) e.sid = sidOf(e.body.token);
      logins.push(e);
      if (r.statusCode !== 200) await sleep(25);
    }
  };
  const intake = async () => {
    while (!stop) {
      const r = await p.mod.post('/api/v1/events', {
        events: Array.from({ length: 10 }, () => ({
          occurred_at: new Date().toISOString(),
          detector: 'fault.failover',
          camera_id: p.cam,
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
  await p.tp.db.database.listen('argus_failover_probe', (payload) => heard.push(payload));
  // SSE clients of the event stream, as the console's: one that ends is opened again with the
  // Last-Event-ID of the last frame it had. Each must see every acknowledged event, none twice.
  const streams = await Promise.all([0, 1].map(() => follow(p)));
  const workers = [loginWorker(), loginWorker(), loginWorker(), intake(), intake()];
  while (logins.filter((e) => e.sid).length < 20) await sleep(50);

  const { killedAt, health, promotedAt } = await o.fail();
  const since = promotedAt ?? killedAt;
  let writesAgainAt = 0;
  while (Date.now() - since < o.writesAgainWithinMs) {
    if ((await login()).statusCode === 200) {
      writesAgainAt = Date.now();
      break;
    }
    await sleep(50);
  }
  await sleep(1000);
  stop = true;
  await Promise.all(workers);

  const acked = logins.filter((e) => e.sid).map((e) => e.sid!);
  const ackedEvents = events.flatMap((e) => e.ids ?? []);
  const failedLogins = logins.filter((e) => e.status !== 200);
  const failedIntake = events.filter((e) => e.status !== 200);
  const secs = (at: number) => (writesAgainAt ? (writesAgainAt - at) / 1000 : null);
  const figures = {
    ...(promotedAt ? { writes_again_after_promotion_secs: secs(promotedAt) } : {}),
    writes_again_after_kill_secs: secs(killedAt),
    health_while_down: health,
    logins_acked: acked.length,
    logins_failed: failedLogins.length,
    event_batches_acked: events.length - failedIntake.length,
    events_acked: ackedEvents.length,
    event_batches_failed: failedIntake.length,
    statuses: [...new Set([...logins, ...events].map((e) => e.status))].sort(),
    acked_after_failover: logins.filter((e) => e.sid && e.at > (promotedAt ?? writesAgainAt)).length,
  };
  expect(writesAgainAt, JSON.stringify(figures)).toBeGreaterThan(0);
  expect(health).toBe('down');
  for (const e of [...failedLogins, ...failedIntake]) expect(e.body).toEqual({ error: 'db_unavailable' });
  expect(figures.acked_after_failover).toBeGreaterThan(0);

  // Every acknowledged write is on the promoted standby: the session, its login audit, each event.
  const sse = await Promise.all(
    streams.map(async (f) => {
      // Bounded: a stream with a gap never gets there; its missing count is the figure.
      for (let i = 0; i < 150 && ackedEvents.some((id) => !f.seen.has(id)); i++) await sleep(100);
      f.stop();
      const missing = ackedEvents.filter((id) => !f.seen.has(id)).length;
      return { reopened: f.reopened(), resync: f.resync(), missing, duplicates: f.duplicates() };
    }),
  );
  const direct = postgres(await o.survivorUrl(), { max: 1, onnotice: () => {} });
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
    const streams_without_gap = sse.filter((x) => x.missing === 0 && x.resync === 0).length;
    const all = { ...figures, acknowledged_writes_lost: lost, heard, sse, streams_without_gap };
    console.info(`${o.label}: ${JSON.stringify(all)}`);
    expect(lost).toEqual({ sessions: 0, audit: 0, events: 0 });
    for (const x of sse) expect(x).toMatchObject({ missing: 0, duplicates: 0 });
    expect(heard[0]).toBe('after');
    return all;
  } finally {
    await direct.end();
  }
}
