/**
 * A 10,000-camera fleet on one plane (issue 26): NODES fake nodes (bench/plane/fleet-nodes.ts: one
 * HTTP server in this process, a port per node) with CAMERAS cameras each, registered through the
 * API of the real plane process (default sweeper settings: every 5 s, 16 polls at once). Measures:
 * 1. registration, and the time until every camera is live;
 * 2. steady sweeps: each pass's wall time (its sampled_at to its NOTIFY), the CPU per pass of the
 *    plane and of its PostgreSQL backends;
 * 3. GET /api/v1/monitor/fleet/summary, the node telemetry stream's snapshot (GET
 *    /api/v1/monitor/nodes, every node's frame) and GET /api/v1/monitor/plane, one request at a time;
 * 4. GET /api/v1/cameras: the first page and the last (deep keyset) page, 500 rows each, and a walk
 *    of every page;
 * 5. the reconcile after a plane restart: the plane is stopped, every node loses its streams (a
 *    fleet reinstalled while the plane was down, the worst case), the plane starts again; the time
 *    until every stream is back on its node and every camera is live again;
 * 6. the feed with EVENTS events over 30 days across the fleet's cameras (seeded straight into the
 *    day partitions, bench/plane/seed-events.ts, two days at a time), while the sweeper runs: the
 *    first page and a camera's first page.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/fleet-10k.js
 * Knobs: NODES (5000), CAMERAS (2 per node), EVENTS (10000000; 0 skips the feed), REQUESTS (200
 * per latency row), SWEEPS (3 measured), INTERVAL_S (5), KEEP_DB=1 keeps the database.
 */
import { loadavg } from 'node:os';
import { request } from 'node:http';
import postgres from 'postgres';
import { benchDatabase, startPlaneProcess, loginToken, backendsCpuMs, backendsCpuSince, BOOT } from './harness.js';
import { keepAliveClient } from './keep-alive-client.js';
import { FakeFleet } from './fleet-nodes.js';
import { insertCameras, liveCameras, registerNodes, until, watchSweeps } from './fleet-setup.js';
import { seedDay } from './seed-events.js';

const NODES = Number(process.env.NODES ?? 5000);
const CAMERAS = Number(process.env.CAMERAS ?? 2);
const EVENTS = Number(process.env.EVENTS ?? 10_000_000);
const REQUESTS = Number(process.env.REQUESTS ?? 200);
const SWEEPS = Number(process.env.SWEEPS ?? 3);
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 5);
const TOTAL = NODES * CAMERAS;
// The bound of each wait (a hang, not a figure).
const LIMIT_S = 1800;
const DAYS = 30;

const t = () => performance.now();
const secs = (from: number) => +((t() - from) / 1000).toFixed(1);
const pct = (xs: number[], q: number) =>
  +[...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!.toFixed(1);
const db = await benchDatabase();
const fleet = await FakeFleet.start(NODES);
const plane = await startPlaneProcess(
  db.url,
  `[sweeper]\ninterval_secs = ${INTERVAL_S}\ntimeout_secs = 2\nconcurrency = 16\n`,
);
const sql = postgres(db.url, { max: 2, onnotice: () => {} });
const { http, must, agent } = keepAliveClient(16);
const out: Record<string, unknown> = { nodes: NODES, cameras: TOTAL, interval_s: INTERVAL_S };

// Each sweep the plane publishes: its NOTIFY's arrival, its number and its wall time.
const published = await watchSweeps(sql, LIMIT_S);
const { sweeps } = published;
// The plane's pool opens and closes backends: CPU is summed per backend pid (harness.ts).
const backendsCpu = () => backendsCpuMs(db.url);

try {
  // 1. The nodes through the API, eight at a time; the cameras in one INSERT (an import: a camera
  // created through the API takes the organisation's row lock and counts its cameras, so ten
  // thousand of them in turn would take most of the run), then the first sweeps' reconcile puts
  // every stream on its node.
  const root = await loginToken(plane.base, BOOT);
  const org = (await must(http(plane.base, 'POST', '/api/v1/orgs', { name: 'fleet-org' }, root), 'org')).id as string;
  const admin = { login: 'fleet-admin', password: 'fleet-admin-password' };
  await must(
    http(plane.base, 'POST', '/api/v1/users', { ...admin, name: 'a', role: 'admin', org_id: org }, root),
    'admin',
  );
  const session = await loginToken(plane.base, admin);
  const t0 = t();
  const nodeIds = await registerNodes({ base: plane.base, root, client: { http, must, agent }, fleet }, NODES, 'fleet');
  const nodesS = secs(t0);
  const t1 = t();
  const cameraIds = await insertCameras(sql, org, nodeIds, CAMERAS, 'fleet');
  await until('every stream on its node', async () => fleet.streamCount === TOTAL, LIMIT_S);
  const streamsS = secs(t1);
  await until('every camera live', async () => (await liveCameras(sql)) === TOTAL, LIMIT_S);
  out.registration = {
    nodes_s: nodesS,
    nodes_per_s: +(NODES / nodesS).toFixed(0),
    streams_put_s: streamsS,
    all_live_s: secs(t1),
  };
  console.error(`registered ${NODES} nodes, ${TOTAL} cameras: ${JSON.stringify(out.registration)}`);

  // 2. Steady sweeps: CPU from one NOTIFY to the SWEEPS-th after it.
  await published.next(1);
  const c0 = { plane: await plane.cpuMs(), pg: await backendsCpu(), polls: fleet.counts.system };
  const steady = await published.next(SWEEPS);
  const c1 = { plane: await plane.cpuMs(), pg: await backendsCpu(), polls: fleet.counts.system };
  out.sweep = {
    wall_ms: steady.map((s) => s.wallMs),
    reachable: steady.map((s) => s.reachable),
    plane_cpu_ms_per_pass: Math.round((c1.plane - c0.plane) / SWEEPS),
    postgres_cpu_ms_per_pass: Math.round(backendsCpuSince(c0.pg, c1.pg) / SWEEPS),
    polls_per_pass: Math.round((c1.polls - c0.polls) / SWEEPS),
  };
  console.error(`sweeps: ${JSON.stringify(out.sweep)}`);

  // 3, 4. Reads, one at a time.
  const latency = async (path: string, token: string) => {
    const ms: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const s = t();
      await must(http(plane.base, 'GET', path, undefined, token), path);
      ms.push(t() - s);
    }
    return { p50_ms: pct(ms, 0.5), p99_ms: pct(ms, 0.99) };
  };
  /** The node stream's snapshot: every node's frame, then the stream is closed. */
  const snapshot = () =>
    new Promise<{ ms: number; frames: number; bytes: number }>((res, rej) => {
      const s = t();
      const u = new URL('/api/v1/monitor/nodes', plane.base);
      const req = request(u, { headers: { authorization: `Bearer ${root}` } }, (r) => {
        let frames = 0,
          bytes = 0,
          tail = '';
        r.on('data', (c: Buffer) => {
          bytes += c.length;
          // Frames end with a blank line; a chunk may end inside one, so its rest waits for the next.
          const parts = (tail + c.toString()).split('\n\n');
          tail = parts.pop()!;
          frames += parts.filter((f) => /(^|\n)data:/.test(f)).length;
          if (frames >= NODES) {
            res({ ms: t() - s, frames, bytes });
            req.destroy();
          }
        });
      });
      req.on('error', (e) => (e.message.includes('aborted') ? undefined : rej(e)));
      req.end();
    });
  const snaps = [];
  for (let i = 0; i < 10; i++) snaps.push(await snapshot());
  out.monitor = {
    summary: await latency('/api/v1/monitor/fleet/summary', root),
    plane: await latency('/api/v1/monitor/plane', root),
    nodes_snapshot: {
      p50_ms: pct(
        snaps.map((x) => x.ms),
        0.5,
      ),
      max_ms: pct(
        snaps.map((x) => x.ms),
        1,
      ),
      mb: +(snaps[0]!.bytes / 1e6).toFixed(2),
    },
  };
  const ids = (await sql`select id from cameras order by id`).map((r) => r.id as string);
  const w0 = t();
  let pages = 0;
  for (let after: string | null = null; ; pages++) {
    const page: { next: string | null } = await must(
      http(plane.base, 'GET', `/api/v1/cameras${after ? `?after=${after}` : ''}`, undefined, session),
      'walk',
    );
    if (!(after = page.next)) break;
  }
  const walkMs = Math.round(t() - w0);
  out.camera_list = {
    first_page: await latency('/api/v1/cameras', session),
    last_page: await latency(`/api/v1/cameras?after=${ids[Math.max(0, ids.length - 501)]}`, session),
    walk: { pages: pages + 1, ms: walkMs },
  };
  console.error(`reads: ${JSON.stringify({ monitor: out.monitor, camera_list: out.camera_list })}`);

  // 5. The reconcile after a restart, every stream to put back.
  const puts0 = fleet.counts.put;
  let down = 0;
  let downAt = 0;
  await plane.restart(() => {
    for (const n of fleet.nodes) n.streams.clear();
    down = t();
    downAt = Date.now();
  });
  const ready = secs(down);
  const seq0 = sweeps.length;
  await until('every stream back on its node', async () => fleet.streamCount === TOTAL, LIMIT_S);
  const streamsBack = secs(down);
  await until('every camera live', async () => (await liveCameras(sql)) === TOTAL, LIMIT_S);
  const allLive = secs(down);
  await until('a sweep published after', async () => sweeps.length > seq0, LIMIT_S);
  out.restart_reconcile = {
    ready_s: ready,
    streams_back_s: streamsBack,
    all_live_s: allLive,
    puts: fleet.counts.put - puts0,
    // each sweep published since the restart: seconds after the restart, its wall time
    sweeps: sweeps.slice(seq0).map((s) => ({ at_s: +((s.at - downAt) / 1000).toFixed(1), wall_ms: s.wallMs })),
  };
  console.error(`restart: ${JSON.stringify(out.restart_reconcile)}`);

  // 6. The feed at EVENTS events, seeded two days at a time while the fleet is swept.
  if (EVENTS > 0) {
    const s0 = t();
    await sql`select argus_ensure_event_partitions(now() - interval '32 days', now() + interval '2 days')`;
    const perDay = Math.ceil(EVENTS / DAYS);
    const [{ seq }] = await sql`select setval('event_seq', nextval('event_seq') + ${EVENTS + 10}) as seq`;
    const conns = [0, 1].map(() => postgres(db.url, { max: 1, onnotice: () => {} }));
    let day = 0;
    await Promise.all(
      conns.map(async (c) => {
        await c`set synchronous_commit = off`;
        for (let d = day++; d < DAYS; d = day++) {
          const n = Math.min(perDay, EVENTS - d * perDay);
          if (n > 0) await seedDay(c, d, n, Number(seq) - EVENTS - 10 + d * perDay, org, nodeIds[0]!, cameraIds);
        }
        await c.end();
      }),
    );
    await sql.unsafe('vacuum (analyze) events');
    const seeded = secs(s0);
    const [{ n }] = await sql`select count(*)::bigint as n from events where category = 'camera'`;
    console.error(`${Number(n)} events seeded in ${seeded} s`);
    out.feed = {
      events: Number(n),
      seeded_s: seeded,
      first_page: await latency('/api/v1/events', session),
      camera_first_page: await latency(`/api/v1/events?camera=${cameraIds[7]}`, session),
    };
  }
  out.plane_rss_mb = Math.round(await plane.rssMb());
  out.load_average = loadavg().map((x) => +x.toFixed(1));

  const r = out as any;
  console.log(`\nA ${TOTAL.toLocaleString('en')}-camera fleet (${NODES} nodes) on one plane`);
  console.log('| what | figure |');
  console.log('|---|---|');
  console.log(`| nodes registered through the API, 8 at once | ${r.registration.nodes_per_s} nodes/s |`);
  console.log(
    `| cameras imported: every stream put, every camera live | ${r.registration.streams_put_s} s, ${r.registration.all_live_s} s |`,
  );
  console.log(
    `| sweep pass, wall (sampled to published) | ${r.sweep.wall_ms.join(', ')} ms (interval ${INTERVAL_S * 1000} ms) |`,
  );
  console.log(
    `| sweep pass, CPU | plane ${r.sweep.plane_cpu_ms_per_pass} ms, PostgreSQL ${r.sweep.postgres_cpu_ms_per_pass} ms |`,
  );
  console.log(`| fleet summary | p50 ${r.monitor.summary.p50_ms} ms, p99 ${r.monitor.summary.p99_ms} ms |`);
  console.log(
    `| node telemetry snapshot (${NODES} frames, ${r.monitor.nodes_snapshot.mb} MB) | p50 ${r.monitor.nodes_snapshot.p50_ms} ms, max ${r.monitor.nodes_snapshot.max_ms} ms |`,
  );
  console.log(`| plane samples | p50 ${r.monitor.plane.p50_ms} ms, p99 ${r.monitor.plane.p99_ms} ms |`);
  console.log(
    `| camera list, first page (500) | p50 ${r.camera_list.first_page.p50_ms} ms, p99 ${r.camera_list.first_page.p99_ms} ms |`,
  );
  console.log(
    `| camera list, last page (500) | p50 ${r.camera_list.last_page.p50_ms} ms, p99 ${r.camera_list.last_page.p99_ms} ms |`,
  );
  console.log(`| camera list, every page (${r.camera_list.walk.pages}) | ${r.camera_list.walk.ms} ms |`);
  console.log(
    `| restart: ready, streams back, every camera live | ${r.restart_reconcile.ready_s} s, ${r.restart_reconcile.streams_back_s} s, ${r.restart_reconcile.all_live_s} s (${r.restart_reconcile.puts} PUTs) |`,
  );
  if (r.feed) {
    console.log(
      `| feed first page at ${r.feed.events} events | p50 ${r.feed.first_page.p50_ms} ms, p99 ${r.feed.first_page.p99_ms} ms |`,
    );
    console.log(
      `| feed, one camera's first page | p50 ${r.feed.camera_first_page.p50_ms} ms, p99 ${r.feed.camera_first_page.p99_ms} ms |`,
    );
  }
  console.log(JSON.stringify(out));
} finally {
  await sql.end();
  await plane.stop();
  agent.destroy();
  await fleet.close();
  if (process.env.KEEP_DB) console.log(`database kept: ${new URL(db.url).pathname.slice(1)}`);
  else await db.drop();
}
process.exit(0);
