/**
 * Analytics at scale (issue 13): seeds EVENTS (default 10 million) events of one organisation over
 * 30 days (64 cameras, 16 detectors, a tenth of them intervals of up to 2 hours, some still open)
 * straight into the day partitions, then measures through the real plane executable over HTTP,
 * one request at a time: count by detector x hour over the 30 days in Europe/Berlin (target p99
 * < 300 ms), the same with `semantics: active` and `total_duration_seconds` (p99 < 500 ms), and a
 * batch of 32 mixed queries, as a dashboard's (p99 < 1.5 s). Baseline in the same run: `select count(*)` of the
 * organisation's events over the 30 days (the least any exact answer reads).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/analytics.js
 *   (EVENTS default 10000000, REQUESTS per row default 20, KEEP_DB=1 keeps the database, REUSE_DB=<name> skips seeding)
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { BOOT, loginToken, startPlaneProcess } from './harness.js';
import { benchServerUrl } from '../harness.js';
import { seedEvents } from './seed-events.js';

const BASE = benchServerUrl();
const EVENTS = Number(process.env.EVENTS ?? 10_000_000);
const REQUESTS = Number(process.env.REQUESTS ?? 20);
const DAYS = 30;
const CAMERAS = 64;
const DAY_MS = 86_400_000;

const reuse = process.env.REUSE_DB;
const dbName = reuse ?? `argus_bench_${randomBytes(4).toString('hex')}`;
const admin = postgres(BASE, { max: 1, onnotice: () => {} });
if (!reuse) await admin.unsafe(`create database ${dbName}`);
const url = new URL(BASE);
url.pathname = `/${dbName}`;
const plane = await startPlaneProcess(url.toString(), '[sweeper]\nenabled = false\n');
const db = postgres(url.toString(), { max: 2, onnotice: () => {} });

async function api(method: string, path: string, body: unknown, token: string): Promise<any> {
  const r = await fetch(`${plane.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}

const pct = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
async function timed(what: string, n: number, run: () => Promise<unknown>): Promise<string> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await run();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return `| ${what} | ${n} | ${pct(ms, 0.5).toFixed(0)} | ${pct(ms, 0.99).toFixed(0)} |`;
}

try {
  const root = await loginToken(plane.base, BOOT);
  let orgId: string;
  let session: string;
  if (reuse) {
    orgId = (await db`select id from orgs where name = 'bench-org'`)[0]!.id;
    session = await loginToken(plane.base, { login: 'bench-admin', password: 'bench-password-1' });
  } else {
    orgId = (await api('POST', '/api/v1/orgs', { name: 'bench-org' }, root)).id;
    await api(
      'POST',
      '/api/v1/users',
      { login: 'bench-admin', name: 'bench', password: 'bench-password-1', role: 'admin', org_id: orgId },
      root,
    );
    session = await loginToken(plane.base, { login: 'bench-admin', password: 'bench-password-1' });
    const node = (
      await api(
        'POST',
        '/api/v1/nodes',
        { name: 'bench-node', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' },
        root,
      )
    ).id;
    const cams: string[] = [];
    for (let i = 0; i < CAMERAS; i++)
      cams.push(
        (
          await api(
            'POST',
            '/api/v1/cameras',
            { name: `cam-${i}`, node_id: node, main_source: 'rtsp://10.0.0.1/a' },
            session,
          )
        ).id,
      );
    const seconds = await seedEvents(db, EVENTS, DAYS, orgId, node, cams);
    console.log(`seeded ${EVENTS} events in ${seconds.toFixed(0)} s`);
  }
  const to = new Date().toISOString();
  const from = new Date(Date.now() - DAYS * DAY_MS).toISOString();
  const base = { from, to, timezone: 'Europe/Berlin' };
  const rows: string[] = [];
  rows.push(
    await timed(
      'baseline: select count(*) of the organisation over 30 days (SQL)',
      5,
      () => db`select count(*) from events where org_id = ${orgId} and occurred_at >= ${from} and occurred_at < ${to}`,
    ),
  );
  rows.push(
    await timed('count_events by detector x hour, Europe/Berlin, 30 days', REQUESTS, () =>
      api(
        'POST',
        '/api/v1/event-analytics/query',
        { ...base, measure: 'count_events', group_by: 'detector', bucket: 'hour', top_limit: 16 },
        session,
      ),
    ),
  );
  rows.push(
    await timed('total_duration_seconds, semantics active, by detector, 30 days', REQUESTS, () =>
      api(
        'POST',
        '/api/v1/event-analytics/query',
        { ...base, measure: 'total_duration_seconds', semantics: 'active', group_by: 'detector', top_limit: 16 },
        session,
      ),
    ),
  );
  // A dashboard's batch: 8 widgets each over today, the last 24 hours, the last 7 and the last 30 days.
  const PERIOD_MS = [Date.now() % DAY_MS || 1000, DAY_MS, 7 * DAY_MS, 30 * DAY_MS];
  const mixed = Array.from({ length: 32 }, (_, i) => ({
    key: `q${i}`,
    query: {
      ...base,
      from: new Date(Date.now() - PERIOD_MS[i % 4]!).toISOString(),
      measure: ['count_events', 'avg_confidence', 'open_events', 'count_events'][(i >> 2) % 4],
      group_by: ['detector', 'severity', 'none', 'category'][(i >> 3) % 4],
      bucket: ['day', 'hour', 'none'][i % 3],
      top_limit: 12,
    },
  }));
  rows.push(
    await timed('batch of 32 dashboard queries (today, 24 h, 7 d, 30 d)', Math.max(3, Math.floor(REQUESTS / 4)), () =>
      api('POST', '/api/v1/event-analytics/query-batch', { queries: mixed }, session),
    ),
  );
  console.log(
    `\n${EVENTS} events, one organisation, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('| query | requests | p50 ms | p99 ms |\n|---|---|---|---|');
  for (const r of rows) console.log(r);
} finally {
  await db.end();
  await plane.stop();
  if (!reuse && !process.env.KEEP_DB) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  else console.log(`database kept: ${dbName}`);
  await admin.end();
}
