/**
 * GET /api/v1/monitor/fleet/summary on the real plane process (issue 11: at least 10,000 requests/s;
 * it reads memory only). A sweep of NODES synthetic nodes is stored first, so the summary is a real
 * one. Baselines in the same run, on the same process and connections: GET /health (public, no
 * session check) and GET /api/v1/version (the session check without a database read).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/monitor-summary.js
 * Knobs: CONNECTIONS (16), DURATION_S (5), NODES (500).
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import pino from 'pino';
import { openDatabase } from '../../src/plane/db/database.js';
import { FleetMonitor } from '../../src/plane/monitor/fleet.service.js';
import { benchDatabase, startPlaneProcess, loginToken, BOOT } from './harness.js';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const DURATION_S = Number(process.env.DURATION_S ?? 5);
const NODES = Number(process.env.NODES ?? 500);

const db = await benchDatabase();
// The bench publishes the sweeps itself: the plane's own sweeper would publish empty ones over them.
const plane = await startPlaneProcess(db.url, '[sweeper]\nenabled = false\n');
const root = await loginToken(plane.base, BOOT);

// One stored sweep (from this process, as the sweeping process would), loaded by the plane on NOTIFY.
const database = await openDatabase({ kind: 'postgres', url: db.url });
const fleet = new FleetMonitor(
  database.db,
  async () => ({ total: NODES, live: NODES, unavailable: 0, degraded: 0, failing: 0 }),
  pino({ level: 'warn' }),
);
const now = Date.now();
await fleet.publish({
  sampled_ms: now,
  nodes_total: NODES,
  polls: Array.from({ length: NODES }, () => ({
    node_id: randomUUID(),
    attempted_ms: now,
    last_seen_ms: now,
    reachable: true,
    errors: [],
    license: 'ok' as const,
    storage_telemetry: null,
    system_telemetry: {
      cpus: 8,
      proc_cpu_cores: 0.5,
      host_cpu_busy_pct: 20,
      mem_total_mb: 32000,
      mem_available_mb: 12000,
      rss_mb: 300,
      stream_counts: { total: 8, live: 7, degraded: 1, failing: 0 },
    },
  })),
});
await database.close();
for (let i = 0; ; i++) {
  const r = await fetch(`${plane.base}/api/v1/monitor/fleet/summary`, { headers: { authorization: `Bearer ${root}` } });
  const body = (await r.json()) as { seq: number };
  if (body.seq === 1) break;
  if (i > 200) throw new Error(`the plane did not load the sweep: ${JSON.stringify(body)}`);
  await new Promise((res) => setTimeout(res, 25));
}

async function run(path: string, auth: boolean) {
  const r = await autocannon({
    url: plane.base + path,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: auth ? { authorization: `Bearer ${root}` } : {},
  });
  if (r.non2xx) throw new Error(`${path}: ${r.non2xx} answers were not 2xx`);
  return { rps: Math.round(r.requests.average), p99_ms: r.latency.p99 };
}

const health = await run('/health', false);
const version = await run('/api/v1/version', true);
const summary = await run('/api/v1/monitor/fleet/summary', true);
const rss = await plane.rssMb();
await plane.stop();
await db.drop();

const result = {
  connections: CONNECTIONS,
  duration_s: DURATION_S,
  nodes: NODES,
  summary,
  baseline_health: health,
  baseline_version: version,
  summary_vs_health: Number((summary.rps / health.rps).toFixed(2)),
  plane_rss_mb: Math.round(rss),
};
console.log(`| GET /api/v1/monitor/fleet/summary | ${summary.rps} req/s | p99 ${summary.p99_ms} ms |`);
console.log(`| GET /health (baseline) | ${health.rps} req/s | p99 ${health.p99_ms} ms |`);
console.log(`| GET /api/v1/version (baseline, session check) | ${version.rps} req/s | p99 ${version.p99_ms} ms |`);
console.log(JSON.stringify(result));
