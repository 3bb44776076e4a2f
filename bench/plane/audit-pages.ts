/**
 * GET /api/v1/audit?limit=100 over 1,000,000 audit rows spread over 60 days of partitions,
 * driven over HTTP by autocannon against the real plane process: half first pages, half deep
 * pages (a random before_ts/before_id cursor inside the 60 days). Prints requests/s, p50/p99
 * latency and the plane's RSS. Target (issue 2): >= 2,000 pages/s at p99 < 50 ms on 2 cores.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/audit-pages.js
 * Knobs: ROWS (1000000), DURATION_S (20), CONNECTIONS (32), KEEP_DB=1 to keep the database,
 * BENCH_DB_URL=<url of a kept database> to skip seeding. Also prints the CPU time the plane and
 * its PostgreSQL backends spent per page: on a shared machine that figure is the steadier one.
 */
import autocannon from 'autocannon';
import postgres from 'postgres';
import { benchDatabase, startPlaneProcess, loginToken, processCpuMs, BOOT } from './harness.js';

const ROWS = Number(process.env.ROWS ?? 1_000_000);
const DURATION_S = Number(process.env.DURATION_S ?? 20);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const DAYS = 60;

const db = process.env.BENCH_DB_URL ? { url: process.env.BENCH_DB_URL, drop: async () => {} } : await benchDatabase();
let plane = await startPlaneProcess(db.url); // migrates a fresh database and bootstraps
const sql = postgres(db.url, { max: 1, onnotice: () => {} });
const [{ have }] = await sql`select count(*)::int as have from audit`;
const t0 = performance.now();
if (have < ROWS) {
  await sql`select argus_ensure_audit_partitions(now() - interval '62 days', now() + interval '2 days')`;
  const [{ org_id: orgId, id: actorId }] = await sql`select org_id, id from users where login = ${BOOT.login}`;
  // UUIDv7: 48-bit milliseconds, version 7, 12 random bits, variant 10, 62 random bits.
  await sql.unsafe(`create function pg_temp.uuid7(ts timestamptz) returns uuid language sql volatile as $$
    select (lpad(to_hex(floor(extract(epoch from ts) * 1000)::bigint), 12, '0') || '7' || substr(md5(random()::text), 1, 3)
      || to_hex(8 + floor(random() * 4)::int) || substr(md5(random()::text), 1, 15))::uuid $$`);
  const CHUNK = 100_000;
  for (let from = 0; from < ROWS; from += CHUNK) {
    const to = Math.min(ROWS, from + CHUNK);
    // Oldest first, so that seq (from audit_seq) grows with occurred_at as in real life.
    await sql.unsafe(
      `
      insert into audit (id, seq, occurred_at, org_id, actor_id, actor_name, actor_role, ip, user_agent, action, object_type, object_id, object_name, params)
      select pg_temp.uuid7(ts), nextval('audit_seq'), ts, $1, $2, 'bench-root', 'superadmin', '10.1.' || (g % 250) || '.' || (g % 199),
             'bench/1.0', (array['auth.login','camera.update','user.update','node.create','tag.create'])[1 + g % 5], 'camera',
             gen_random_uuid(), 'camera-' || (g % 5000), jsonb_build_object('n', g, 'changed', jsonb_build_array('name'))
      from (select g, date_trunc('milliseconds', now() - interval '${DAYS} days' + (g * interval '${DAYS} days' / ${ROWS}) - interval '1 minute') as ts
            from generate_series(${from + 1}, ${to}) g) s
      order by g`,
      [orgId, actorId],
    );
    process.stdout.write(`\rseeded ${to} rows`);
  }
  await sql`analyze audit`;
}
const [{ n, parts }] = await sql`select count(*)::int as n, count(distinct tableoid)::int as parts from audit`;
console.log(
  `\naudit: ${n} rows in ${parts} partitions (seeding took ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
);
await sql.end();

// A restart, as a deployment would have it after the data is there.
await plane.stop();
plane = await startPlaneProcess(db.url);
const token = await loginToken(plane.base, BOOT);
const now = Date.now();
const span = DAYS * 86_400_000;
let deep = 0,
  first = 0;
const path = () => {
  if (Math.random() < 0.5) {
    first++;
    return '/api/v1/audit?limit=100';
  }
  deep++;
  const ts = new Date(now - Math.random() * span).toISOString();
  return `/api/v1/audit?limit=100&before_ts=${encodeURIComponent(ts)}&before_id=ffffffff-ffff-7fff-bfff-ffffffffffff`;
};

// Warm-up, then the measured run.
await autocannon({
  url: plane.base,
  connections: CONNECTIONS,
  duration: 3,
  headers: { authorization: `Bearer ${token}` },
  requests: [{ setupRequest: (r: any) => ({ ...r, path: path() }) }],
});
deep = first = 0;
let rssPeak = 0;
const backends = await (async () => {
  const q = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    return (
      await q`select pid from pg_stat_activity where datname = current_database() and application_name = 'argus-plane'`
    ).map((r) => Number(r.pid));
  } finally {
    await q.end();
  }
})();
const cpu0 = {
  plane: await plane.cpuMs(),
  pg: (await Promise.all(backends.map(processCpuMs))).reduce((a, b) => a + b, 0),
};
const sampler = setInterval(async () => {
  rssPeak = Math.max(rssPeak, await plane.rssMb());
}, 500);
const result = await autocannon({
  url: plane.base,
  connections: CONNECTIONS,
  duration: DURATION_S,
  headers: { authorization: `Bearer ${token}` },
  requests: [{ setupRequest: (r: any) => ({ ...r, path: path() }) }],
});
clearInterval(sampler);
const cpu1 = {
  plane: await plane.cpuMs(),
  pg: (await Promise.all(backends.map(processCpuMs))).reduce((a, b) => a + b, 0),
};

// One page checked for shape: 100 rows, newest first.
const check = await fetch(`${plane.base}/api/v1/audit?limit=100`, { headers: { authorization: `Bearer ${token}` } });
const body = (await check.json()) as { rows: unknown[]; stream_cursor: string };

console.log(
  JSON.stringify(
    {
      rows: n,
      partitions: parts,
      duration_s: DURATION_S,
      connections: CONNECTIONS,
      first_pages: first,
      deep_pages: deep,
      requests_per_s: Math.round(result.requests.average),
      total: result.requests.total,
      non_2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      latency_ms: {
        p50: result.latency.p50,
        p90: result.latency.p90,
        p99: result.latency.p99,
        max: result.latency.max,
      },
      cpu_ms_per_page: {
        plane: +((cpu1.plane - cpu0.plane) / result.requests.total).toFixed(3),
        postgres: +((cpu1.pg - cpu0.pg) / result.requests.total).toFixed(3),
      },
      load_average: (await import('node:os')).loadavg().map((x) => +x.toFixed(2)),
      plane_rss_mb: { peak: Math.round(rssPeak), after: Math.round(await plane.rssMb()) },
      page_check: { status: check.status, rows: body.rows.length, stream_cursor: body.stream_cursor },
      target: '>= 2000 pages/s at p99 < 50 ms',
    },
    null,
    2,
  ),
);

await plane.stop();
if (!process.env.KEEP_DB) await db.drop();
else console.log(`kept ${db.url}`);
process.exit(0);
