/**
 * The sweeper against many nodes: the real plane process polls NODES fake nodes (HTTP servers in
 * this process, /api/v1/system and /api/v1/streams behind the write token) with CAMERAS cameras
 * each, every INTERVAL_S seconds. Phase 1 (steady): every stream live, nothing changes. Phase 2
 * (churn): each sweep a tenth of the nodes goes down or comes back and a tenth of the cameras
 * fail or recover, so events are opened and closed. Prints polls per second and the CPU time the
 * plane and its PostgreSQL backends spent per node poll (the steady figure on a shared machine),
 * plus the events written.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/sweeper.js
 * Knobs: NODES (200), CAMERAS (10 per node), INTERVAL_S (2, at least 2), PHASE_S (20).
 */
import postgres from 'postgres';
import { benchDatabase, startPlaneProcess, loginToken, processCpuMs, BOOT } from './harness.js';
import { FakeNode } from '../../test/plane/sweeper/fake-node.js';

const NODES = Number(process.env.NODES ?? 200);
const CAMERAS = Number(process.env.CAMERAS ?? 10);
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 2);
const PHASE_S = Number(process.env.PHASE_S ?? 20);

const db = await benchDatabase();
// timeout_secs must stay below interval_secs
const plane = await startPlaneProcess(
  db.url,
  `[sweeper]\ninterval_secs = ${INTERVAL_S}\ntimeout_secs = 1\nconcurrency = 16\n`,
);
const token = await loginToken(plane.base, BOOT);
const api = async (method: string, path: string, body: unknown) => {
  const r = await fetch(`${plane.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<{ id: string }>;
};

const fakes: Array<{ fake: FakeNode; cameras: string[] }> = [];
for (let i = 0; i < NODES; i++) {
  const fake = await FakeNode.start();
  // The node takes the camera writes: the plane provisions each camera's stream, then the
  // reconcile finds nothing to repair (a steady sweep writes nothing to the nodes).
  fake.acceptWrites = true;
  const { id } = await api('POST', '/api/v1/nodes', { name: `bench-node-${i}`, url: fake.url, api_token: fake.token });
  const cameras: string[] = [];
  for (let c = 0; c < CAMERAS; c++) {
    const cam = await api('POST', '/api/v1/cameras', {
      name: `bench-cam-${i}-${c}`,
      node_id: id,
      main_source: 'testsrc://',
    });
    cameras.push(cam.id);
    fake.stream(cam.id, 'live');
  }
  fakes.push({ fake, cameras });
}
console.log(`${NODES} nodes, ${NODES * CAMERAS} cameras registered`);

const sql = postgres(db.url, { max: 1, onnotice: () => {} });
const polls = () => fakes.reduce((n, f) => n + f.fake.requests.filter((r) => r.path === '/api/v1/system').length, 0);
async function measure(seconds: number, each?: (tick: number) => void) {
  const backends = (
    await sql`select pid from pg_stat_activity where datname = current_database() and application_name = 'argus-plane'`
  ).map((r) => Number(r.pid));
  const pgCpu = async () => (await Promise.all(backends.map(processCpuMs))).reduce((a, b) => a + b, 0);
  const [e0] =
    await sql`select count(*)::int as n, count(ended_at)::int as closed from events where category = 'system'`;
  const c0 = { plane: await plane.cpuMs(), pg: await pgCpu(), polls: polls(), t: performance.now() };
  for (let s = 0; s < seconds; s++) {
    each?.(s);
    await new Promise((r) => setTimeout(r, 1000));
  }
  const c1 = { plane: await plane.cpuMs(), pg: await pgCpu(), polls: polls(), t: performance.now() };
  const [e1] =
    await sql`select count(*)::int as n, count(ended_at)::int as closed from events where category = 'system'`;
  const n = c1.polls - c0.polls;
  return {
    node_polls: n,
    polls_per_s: +(n / ((c1.t - c0.t) / 1000)).toFixed(1),
    cpu_ms_per_poll: { plane: +((c1.plane - c0.plane) / n).toFixed(3), postgres: +((c1.pg - c0.pg) / n).toFixed(3) },
    events_written: e1!.n - e0!.n,
    intervals_closed: e1!.closed - e0!.closed,
  };
}

await new Promise((r) => setTimeout(r, 3000)); // first sweeps: statuses settle
const steady = await measure(PHASE_S);
const churn = await measure(PHASE_S, (tick) => {
  for (let i = tick % 10; i < NODES; i += 10) {
    const f = fakes[i]!;
    f.fake.mode = f.fake.mode === 'up' ? 'error' : 'up';
    const cam = f.cameras[tick % CAMERAS]!;
    f.fake.stream(cam, f.fake.streams.get(`${cam}_main`) === 'live' ? 'failing' : 'live');
  }
});
const [statuses] =
  await sql`select count(*) filter (where status = 'live')::int as live, count(*) filter (where status = 'failing')::int as failing,
  count(*) filter (where status = 'unavailable')::int as unavailable from cameras`;

console.log(
  JSON.stringify(
    {
      nodes: NODES,
      cameras: NODES * CAMERAS,
      interval_s: INTERVAL_S,
      phase_s: PHASE_S,
      steady,
      churn,
      camera_statuses: statuses,
      load_average: (await import('node:os')).loadavg().map((x) => +x.toFixed(2)),
      plane_rss_mb: Math.round(await plane.rssMb()),
    },
    null,
    2,
  ),
);

await sql.end();
await plane.stop();
await Promise.all(fakes.map((f) => f.fake.close()));
await db.drop();
process.exit(0);
