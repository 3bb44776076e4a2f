/**
 * The CPU of one steady sweep pass per node (issue 26, the first limit of docs/deployment.md): the
 * real plane process sweeps NODES fake nodes (bench/plane/fleet-nodes.ts, a loopback port per
 * node) with CAMERAS cameras each, every stream live, nothing to repair. After the set-up the plane
 * is restarted, so that a profile of it (PLANE_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>", written
 * when the bench stops it) holds its start-up and the steady sweeps only, not the registration.
 * Prints the plane's and its PostgreSQL backends' CPU per pass and per node, read from one sweep's
 * NOTIFY to the SWEEPS-th after it: the figure to compare on a loaded machine (wall times are not).
 * Run: npx tsc -p tsconfig.json && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/sweep-pass.js
 * Knobs: NODES (1000), CAMERAS (2 per node), SWEEPS (6 measured), INTERVAL_S (5).
 */
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { benchDatabase, startPlaneProcess, loginToken, backendsCpuMs, backendsCpuSince, BOOT } from './harness.js';
import { keepAliveClient } from './keep-alive-client.js';
import { FakeFleet } from './fleet-nodes.js';
import { insertCameras, liveCameras, registerNodes, until, watchSweeps } from './fleet-setup.js';

const NODES = Number(process.env.NODES ?? 1000);
const CAMERAS = Number(process.env.CAMERAS ?? 2);
const SWEEPS = Number(process.env.SWEEPS ?? 6);
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 5);
const TOTAL = NODES * CAMERAS;
// The bound of each wait of the set-up and the sweeps (a hang, not a figure).
const LIMIT_S = 900;

/** The kernel's share (stime) of a process's CPU so far, in ms: mostly its socket writes and reads. */
const kernelMs = async (pid: number) =>
  Number((await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[12]) * 10;

const db = await benchDatabase();
const fleet = await FakeFleet.start(NODES);
const plane = await startPlaneProcess(
  db.url,
  `[sweeper]\ninterval_secs = ${INTERVAL_S}\ntimeout_secs = 2\nconcurrency = 16\n`,
);
const sql = postgres(db.url, { max: 2, onnotice: () => {} });
const { http, must, agent } = keepAliveClient(8);

// Each sweep the plane publishes, and its wall time.
const published = await watchSweeps(sql, LIMIT_S);

try {
  const root = await loginToken(plane.base, BOOT);
  const org = (await must(http(plane.base, 'POST', '/api/v1/orgs', { name: 'sweep-org' }, root), 'org')).id as string;
  const nodeIds = await registerNodes({ base: plane.base, root, client: { http, must, agent }, fleet }, NODES, 'sweep');
  // The sweeps' reconcile puts the cameras' streams on the nodes.
  await insertCameras(sql, org, nodeIds, CAMERAS, 'sweep');
  await until('every stream on its node', async () => fleet.streamCount === TOTAL, LIMIT_S);
  await until('every camera live', async () => (await liveCameras(sql)) === TOTAL, LIMIT_S);
  console.error(`${NODES} nodes, ${TOTAL} cameras live; restarting the plane`);

  // A fresh process for the steady passes: its first sweep finds every stream in place.
  await plane.restart();
  await published.next(2);
  const puts = fleet.counts.put;
  const pid = plane.child.pid!;
  const c0 = {
    plane: await plane.cpuMs(),
    kernel: await kernelMs(pid),
    pg: await backendsCpuMs(db.url),
    polls: fleet.counts.system,
  };
  const steady = await published.next(SWEEPS);
  const c1 = {
    plane: await plane.cpuMs(),
    kernel: await kernelMs(pid),
    pg: await backendsCpuMs(db.url),
    polls: fleet.counts.system,
  };
  const planeMs = (c1.plane - c0.plane) / SWEEPS;
  const pgMs = backendsCpuSince(c0.pg, c1.pg) / SWEEPS;
  const out = {
    nodes: NODES,
    cameras: TOTAL,
    sweeps: SWEEPS,
    polls_per_pass: Math.round((c1.polls - c0.polls) / SWEEPS),
    repairs: fleet.counts.put - puts,
    reachable: steady.map((s) => s.reachable),
    wall_ms: steady.map((s) => s.wallMs),
    plane_cpu_ms_per_pass: Math.round(planeMs),
    plane_cpu_ms_per_node: +(planeMs / NODES).toFixed(3),
    plane_kernel_ms_per_node: +((c1.kernel - c0.kernel) / SWEEPS / NODES).toFixed(3),
    postgres_cpu_ms_per_pass: Math.round(pgMs),
    postgres_cpu_ms_per_node: +(pgMs / NODES).toFixed(3),
    load_average: loadavg().map((x) => +x.toFixed(1)),
  };
  console.log(`\nSteady sweep passes over ${NODES} nodes (${TOTAL} cameras), ${SWEEPS} passes`);
  console.log('| what | figure |');
  console.log('|---|---|');
  console.log(`| pass wall time (sampled to published) | ${out.wall_ms.join(', ')} ms |`);
  console.log(
    `| plane CPU | ${out.plane_cpu_ms_per_pass} ms per pass, ${out.plane_cpu_ms_per_node} ms per node (${out.plane_kernel_ms_per_node} ms of it in the kernel) |`,
  );
  console.log(
    `| PostgreSQL CPU | ${out.postgres_cpu_ms_per_pass} ms per pass, ${out.postgres_cpu_ms_per_node} ms per node |`,
  );
  console.log(`| load average | ${out.load_average.join(', ')} |`);
  console.log(JSON.stringify(out));
} finally {
  await sql.end();
  await plane.stop();
  agent.destroy();
  await fleet.close();
  await db.drop();
}
process.exit(0);
