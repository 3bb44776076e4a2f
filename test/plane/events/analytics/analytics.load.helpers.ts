import { sql } from 'kysely';
import { expect } from 'vitest';
import postgres from 'postgres';
import { buildApp, makeLogger } from '../../../../src/plane/app.js';
import type { AnalyticsLimits } from '../../../../src/plane/events/analytics/analytics.gate.js';
import { systemClock } from '../../../../src/common/clock.js';
import { freshDatabase, LogCapture, testConfig, TEST_SECRET_KEY, type TestPlane } from '../../harness.js';
import { cameraWorld, unique, type Tenants } from '../../inventory.helpers.js';

const DAY_MS = 86_400_000;

/** The probe's query (issue 25, finding 1): 30 days by hour, grouped by a template field, 100 groups. */
export const heavyQuery = (templateId: string) => {
  const to = Date.now();
  return {
    from: new Date(to - 30 * DAY_MS).toISOString(),
    to: new Date(to).toISOString(),
    measure: 'count_events',
    bucket: 'hour',
    group_by: 'field',
    group_field: { template_id: templateId, key: 'plate' },
    top_limit: 100,
  };
};

/**
 * Organisation A's events for the probe's load: `n` events over the last 30 days on four cameras
 * (the operator sees two), each of a template with a string field `plate` of 500 values, written
 * straight into the events table in one statement (intake would take minutes for 20,000).
 */
export async function seedFieldEvents(t: TestPlane, x: Tenants, n: number): Promise<{ templateId: string }> {
  const world = await cameraWorld(t, x);
  const cams: string[] = [];
  for (let i = 0; i < 4; i++) cams.push(await world.camera(x.a.admin));
  const grant = await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, {
    camera_ids: cams.slice(0, 2),
    tag_ids: [],
  });
  expect(grant.status, grant.text).toBe(200);
  const tpl = await x.a.admin.post('/api/v1/templates', {
    name: unique('lpr'),
    doc: { detector_match: 'lpr*', fields: [{ key: 'plate', source: '/plate', type: 'string' }] },
  });
  expect(tpl.status, tpl.text).toBe(201);
  const start = Date.now() - 30 * DAY_MS + 60_000;
  await sql`insert into events (id, occurred_at, seq, org_id, camera_id, node_id, category, detector, severity, "interval", template_id, list_values, fields, payload, attachments, search)
    select gen_random_uuid(), to_timestamp((${start}::bigint + (g::bigint * ${Math.floor((30 * DAY_MS - 120_000) / n)})) / 1000.0), nextval('event_seq'),
      ${x.a.orgId}::uuid, (${cams}::uuid[])[1 + g % 4], ${world.node}::uuid, 'camera', 'lpr.plate', 1, false, ${tpl.body.id}::uuid,
      '[]'::jsonb, jsonb_build_object('plate', 'P' || (g % 500)), '{}'::jsonb, '[]'::jsonb, ''
    from generate_series(1, ${n}) g`.execute(t.db.database.db);
  await sql`analyze events`.execute(t.db.database.db);
  return { templateId: tpl.body.id as string };
}

/** A plane as startPlane builds it, with analytics limits of the test's choosing (a short deadline, few slots). */
export async function startAnalyticsPlane(limits: Partial<AnalyticsLimits>): Promise<TestPlane> {
  const db = await freshDatabase();
  const logs = new LogCapture();
  const plane = await buildApp({
    config: testConfig(),
    database: db.database,
    clock: systemClock,
    secretKey: TEST_SECRET_KEY,
    logger: makeLogger('info', logs),
    analyticsLimits: limits,
  });
  await plane.app.ready();
  await plane.ready();
  return {
    plane,
    db,
    clock: systemClock,
    logs,
    async close() {
      await plane.close();
      await db.drop();
    },
  };
}

/**
 * Holds the events table (every partition) in ACCESS EXCLUSIVE mode on a connection of its own
 * until `release`: an analytics statement then waits on the lock, which makes "a statement that
 * runs" without depending on how fast the machine is.
 */
export async function lockEvents(url: string): Promise<{ release(): Promise<void> }> {
  const sqlc = postgres(url, { max: 1, onnotice: () => {} });
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  let locked!: () => void;
  const held = new Promise<void>((r) => {
    locked = r;
  });
  const done = sqlc.begin(async (tx) => {
    await tx`lock table events in access exclusive mode`;
    locked();
    await gate;
  });
  await held;
  return {
    async release() {
      open();
      await done;
      await sqlc.end();
    },
  };
}

/** The analytics statements (the bucketed query; pg_stat_activity keeps the first 1 KiB of a text) running on the server for the database of `url`. */
export async function analyticsStatements(
  admin: postgres.Sql,
  url: string,
): Promise<Array<{ pid: number; wait: string | null }>> {
  const name = new URL(url).pathname.slice(1);
  const rows = await admin`select pid, wait_event_type from pg_stat_activity
    where datname = ${name} and state = 'active' and query like '%grouping(e.b)%' and pid <> pg_backend_pid()`;
  return rows.map((r) => ({ pid: Number(r.pid), wait: (r.wait_event_type as string | null) ?? null }));
}

/** Resolves once `cond` holds, checking every 10 ms; fails after `capMs` (a liveness bound, never a performance one). */
export async function until(cond: () => boolean | Promise<boolean>, what: string, capMs = 20_000): Promise<void> {
  const stop = Date.now() + capMs;
  while (!(await cond())) {
    if (Date.now() > stop) throw new Error(`never happened: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
