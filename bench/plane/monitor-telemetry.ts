/**
 * Node telemetry fan-out (issue 11): SUBSCRIBERS streams of GET /api/v1/monitor/nodes held open
 * on the real plane process (32 superadmins x 32 streams, the per-user cap), while this process
 * publishes a synthetic sweep of NODES nodes every INTERVAL_MS as the sweeping plane process
 * would: it stores the sweep and NOTIFYs, and the plane under test (not the publisher) loads it and
 * sends it to every stream, the path every plane process but the sweeping one takes (document 4 §9).
 * Figures: frame delivery latency from the hand-over of the sweep to its arrival at a subscriber
 * (p50/p99 over every frame), the plane's RSS idle, with the streams open and at the end.
 * Baseline (same run): a bare node:http server in a process of its own writing the same bytes (one
 * sweep's frames as SSE text) to as many sockets, read by the same client: what the machine can do
 * with no plane, database or NOTIFY in the path.
 * Target: p99 < 250 ms and RSS < 300 MB at 1,024 subscribers and 500 nodes.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/monitor-telemetry.js
 * Knobs: SUBSCRIBERS (1024), NODES (500), SWEEPS (10), INTERVAL_MS (2000), THREADS (2: client
 * threads reading the streams, bench/plane/sse-counter.ts).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { openDatabase } from '../../src/plane/db/database.js';
import { FleetMonitor } from '../../src/plane/monitor/fleet.service.js';
import type { NodePoll } from '../../src/plane/sweeper/sweep-report.js';
import { benchDatabase, startPlaneProcess, loginToken, BOOT } from './harness.js';
import type { CounterReport, CounterTarget } from './sse-counter.js';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1024);
const NODES = Number(process.env.NODES ?? 500);
const SWEEPS = Number(process.env.SWEEPS ?? 10);
const INTERVAL_MS = Number(process.env.INTERVAL_MS ?? 2000);
const PER_USER = 32;
/** Client threads reading the streams (one thread alone was the bottleneck: see sse-counter.ts). */
const THREADS = Number(process.env.THREADS ?? 2);

const db = await benchDatabase();
// The bench publishes the sweeps itself: the plane's own sweeper would publish empty ones over them.
const plane = await startPlaneProcess(db.url, '[sweeper]\nenabled = false\n');
const { hostname, port } = new URL(plane.base);
const root = await loginToken(plane.base, BOOT);

const users = Math.ceil(SUBSCRIBERS / PER_USER);
const tokens: string[] = [];
for (let u = 0; u < users; u++) {
  const creds = { login: `mon-bench-${u}`, password: `mon-bench-password-${u}` };
  const r = await fetch(`${plane.base}/api/v1/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${root}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...creds, role: 'superadmin' }),
  });
  if (r.status !== 201) throw new Error(`create user: ${r.status} ${await r.text()}`);
  tokens.push(await loginToken(plane.base, creds));
}
const rssIdle = await plane.rssMb();

// The client: THREADS worker threads (sse-counter.ts) hold the streams and record each chunk's
// arrival and frame count; a chunk arriving while sweep k is the newest belongs to sweep k
// (sweeps are INTERVAL_MS apart).
async function client(targets: CounterTarget[]): Promise<{ record(): void; stop(): Promise<CounterReport> }> {
  const per = Math.ceil(targets.length / THREADS);
  const workers = Array.from(
    { length: THREADS },
    (_, i) =>
      new Worker(new URL('./sse-counter.js', import.meta.url), {
        workerData: { targets: targets.slice(i * per, (i + 1) * per) },
      }),
  );
  await Promise.all(
    workers.map(
      (w) =>
        new Promise((r, j) => {
          w.once('message', r);
          w.once('error', j);
        }),
    ),
  );
  return {
    record: () => {
      for (const w of workers) w.postMessage('record');
    },
    async stop() {
      const reports = await Promise.all(
        workers.map(
          (w) =>
            new Promise<CounterReport>((r) => {
              w.once('message', r);
              w.postMessage('stop');
            }),
        ),
      );
      return { arrivals: reports.flatMap((x) => x.arrivals), counts: reports.flatMap((x) => x.counts) };
    },
  };
}

/** Latency of every frame: its chunk's arrival minus the start of the newest sweep before it. */
function latenciesOf(report: CounterReport, starts: number[]): number[] {
  const out: number[] = [];
  report.arrivals.forEach((at, i) => {
    let k = -1;
    for (let s = 0; s < starts.length && starts[s]! <= at; s++) k = s;
    if (k < 0) return;
    for (let n = 0; n < report.counts[i]!; n++) out.push(at - starts[k]!);
  });
  return out.sort((a, b) => a - b);
}
const now = () => performance.timeOrigin + performance.now();

const pct = (list: number[], p: number) =>
  list.length ? Math.round(list[Math.min(list.length - 1, Math.floor((list.length * p) / 100))]!) : NaN;

// The baseline: the same bytes per sweep, written by a bare server to as many sockets.
const BARE = `import { createServer } from 'node:http';
const socks = new Set();
const frame = Buffer.from(process.argv[1].repeat(Number(process.argv[2])));
createServer((req, res) => {
  if (req.url === '/sweep') { for (const s of socks) s.write(frame); res.end(); return; }
  res.writeHead(200, { 'content-type': 'text/event-stream' }); res.flushHeaders(); socks.add(res); res.on('close', () => socks.delete(res));
}).listen(0, '127.0.0.1', function () { console.log(this.address().port); });`;
const sample = JSON.stringify({
  seq: 1000000,
  node_id: randomUUID(),
  attempted_at: new Date().toISOString(),
  last_seen_at: new Date().toISOString(),
  reachable: true,
  system_telemetry: {
    cpus: 8,
    proc_cpu_cores: 0.6,
    host_cpu_busy_pct: 33,
    mem_total_mb: 32000,
    mem_available_mb: 12345,
    rss_mb: 345,
    stream_counts: { total: 8, live: 7, degraded: 1, failing: 0 },
  },
  storage_telemetry: [
    { name: 'main', total_bytes: 4e12, avail_bytes: 1e12 + 5, write_iops: 125, identity_healthy: true },
  ],
  errors: [],
});
const bare = spawn(
  process.execPath,
  ['--input-type=module', '-e', BARE, `id: 1000000\ndata: ${sample}\n\n`, String(NODES)],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const barePort = await new Promise<number>((r) => bare.stdout!.once('data', (b) => r(Number(String(b).trim()))));
const bareClient = await client(
  Array.from({ length: SUBSCRIBERS }, () => ({ host: '127.0.0.1', port: barePort, path: '/', token: '' })),
);
await new Promise((r) => setTimeout(r, 300));
bareClient.record();
const bareStarts: number[] = [];
for (let s = 0; s < SWEEPS; s++) {
  bareStarts.push(now());
  await fetch(`http://127.0.0.1:${barePort}/sweep`);
  await new Promise((r) => setTimeout(r, INTERVAL_MS));
}
const bareReport = await bareClient.stop();
const bareLatencies = latenciesOf(bareReport, bareStarts);
const bareReceived = bareLatencies.length;
bare.kill();

const targets: CounterTarget[] = [];
for (let u = 0; u < users; u++) {
  const n = Math.min(PER_USER, SUBSCRIBERS - u * PER_USER);
  for (let i = 0; i < n; i++)
    targets.push({ host: hostname, port: Number(port), path: '/api/v1/monitor/nodes', token: tokens[u]! });
}
const planeClient = await client(targets);
await new Promise((r) => setTimeout(r, 500));
const rssOpen = await plane.rssMb();

// Baseline: a summary round trip while the streams are open and idle.
const t0 = performance.now();
for (let i = 0; i < 20; i++)
  await (
    await fetch(`${plane.base}/api/v1/monitor/fleet/summary`, { headers: { authorization: `Bearer ${root}` } })
  ).text();
const summaryRoundTripMs = (performance.now() - t0) / 20;

// The publisher: this process, as the sweeping plane process would hand its report over.
const database = await openDatabase({ kind: 'postgres', url: db.url });
const counts = { total: NODES * 4, live: NODES * 4, unavailable: 0, degraded: 0, failing: 0 };
const fleet = new FleetMonitor(database.db, async () => counts, pino({ level: 'warn' }));
const nodeIds = Array.from({ length: NODES }, () => randomUUID());
function pollOf(id: string, i: number, now: number): NodePoll {
  return {
    node_id: id,
    attempted_ms: now,
    last_seen_ms: now,
    reachable: true,
    system_telemetry: {
      cpus: 8,
      proc_cpu_cores: 0.5 + (i % 7) / 10,
      host_cpu_busy_pct: 20 + (i % 50),
      mem_total_mb: 32000,
      mem_available_mb: 12000 + i,
      rss_mb: 300 + (i % 100),
      stream_counts: { total: 8, live: 7, degraded: 1, failing: 0 },
    },
    storage_telemetry: [
      { name: 'main', total_bytes: 4e12, avail_bytes: 1e12 + i, write_iops: 120 + (i % 30), identity_healthy: true },
    ],
    errors: [],
    license: 'ok',
  };
}

const publishMs: number[] = [];
const starts: number[] = [];
planeClient.record();
for (let s = 0; s < SWEEPS; s++) {
  const at = Date.now();
  starts.push(now());
  await fleet.publish({ sampled_ms: at, nodes_total: NODES, polls: nodeIds.map((id, i) => pollOf(id, i, at)) });
  publishMs.push(now() - starts[s]!);
  await new Promise((r) => setTimeout(r, INTERVAL_MS));
}
const rssEnd = await plane.rssMb();

const latencies = latenciesOf(await planeClient.stop(), starts);
const received = latencies.length;
await database.close();
await plane.stop();
await db.drop();

const expected = SUBSCRIBERS * NODES * SWEEPS;
const result = {
  subscribers: targets.length,
  client_threads: THREADS,
  nodes: NODES,
  sweeps: SWEEPS,
  frames_expected: expected,
  frames_received: received,
  delivery_ms: { p50: pct(latencies, 50), p99: pct(latencies, 99), max: Math.round(latencies.at(-1) ?? NaN) },
  baseline_bare_server: { frames_received: bareReceived, p50: pct(bareLatencies, 50), p99: pct(bareLatencies, 99) },
  publish_ms_median: Math.round(publishMs.sort((a, b) => a - b)[Math.floor(publishMs.length / 2)]!),
  summary_round_trip_ms: Number(summaryRoundTripMs.toFixed(2)),
  plane_rss_mb: { idle: Math.round(rssIdle), streams_open: Math.round(rssOpen), end: Math.round(rssEnd) },
};
console.log(
  `| node telemetry, ${targets.length} subscribers x ${NODES} nodes | delivery p50 ${result.delivery_ms.p50} ms | p99 ${result.delivery_ms.p99} ms | RSS ${result.plane_rss_mb.end} MB |`,
);
console.log(
  `| bare server, same bytes and sockets | delivery p50 ${result.baseline_bare_server.p50} ms | p99 ${result.baseline_bare_server.p99} ms | |`,
);
console.log(JSON.stringify(result));
