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

const NODES = Number(process.env.NODES ?? 1000);
const CAMERAS = Number(process.env.CAMERAS ?? 2);
const SWEEPS = Number(process.env.SWEEPS ?? 6);
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 5);
const TOTAL = NODES * CAMERAS;

/** The kernel's share (stime) of a process's CPU so far, in ms: mostly its socket writes and reads. */
const kernelMs = async (pid: number) =>
  Number((await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ')[12]) * 10;

const until = async (what: string, ok: () => Promise<boolean>, limitS = 900) => {
  const end = Date.now() + limitS * 1000;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${limitS} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

const db = await benchDatabase();
const fleet = await FakeFleet.start(NODES);
const plane = await startPlaneProcess(
  db.url,
  `[sweeper]\ninterval_secs = ${INTERVAL_S}\ntimeout_secs = 2\nconcurrency = 16\n`,
);
const sql = postgres(db.url, { max: 2, onnotice: () => {} });
const { http, must, agent } = keepAliveClient(8);

// Each sweep's NOTIFY (the fleet monitor's, once the sweep is stored and published) and its wall time.
const sweeps: Array<{ wallMs: number; reachable: number }> = [];
await sql.listen('argus_monitor', () => {
  const at = Date.now();
  void sql`select summary from monitor_fleet`.then(([r]) => {
    const s = r!.summary as { sampled_at: string; nodes_reachable: number };
    sweeps.push({ wallMs: at - Date.parse(s.sampled_at), reachable: s.nodes_reachable });
  });
});
const waitSweeps = async (n: number) => {
  const from = sweeps.length;
  await until(`${n} sweeps`, async () => sweeps.length >= from + n);
  return sweeps.slice(from, from + n);
};
const liveCameras = async () =>
  Number((await sql`select count(*) filter (where status = 'live') as n from cameras`)[0]!.n);

try {
  const root = await loginToken(plane.base, BOOT);
  const org = (await must(http(plane.base, 'POST', '/api/v1/orgs', { name: 'sweep-org' }, root), 'org')).id as string;
  const nodeIds: string[] = new Array(NODES);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < NODES; i = next++) {
        const body = { name: `sweep-node-${i}`, url: fleet.url(i), api_token: fleet.token };
        nodeIds[i] = (await must(http(plane.base, 'POST', '/api/v1/nodes', body, root), 'node')).id;
      }
    }),
  );
  // The cameras in one INSERT; the sweeps' reconcile puts their streams on the nodes.
  await sql`insert into cameras (id, org_id, node_id, name, main_source)
    select gen_random_uuid(), ${org}, n, 'sweep-cam-' || n || '-' || c, 'testsrc://'
    from unnest(${nodeIds}::uuid[]) n, generate_series(1, ${CAMERAS}) c`;
  await until('every stream on its node', async () => fleet.streamCount === TOTAL);
  await until('every camera live', async () => (await liveCameras()) === TOTAL);
  console.error(`${NODES} nodes, ${TOTAL} cameras live; restarting the plane`);

  // A fresh process for the steady passes: its first sweep finds every stream in place.
  await plane.restart();
  await waitSweeps(2);
  const puts = fleet.counts.put;
  const pid = plane.child.pid!;
  const c0 = {
    plane: await plane.cpuMs(),
    kernel: await kernelMs(pid),
    pg: await backendsCpuMs(db.url),
    polls: fleet.counts.system,
  };
  const steady = await waitSweeps(SWEEPS);
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
