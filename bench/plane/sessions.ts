/**
 * GET /api/v1/sessions against NODES nodes with CAMERAS cameras each and VIEWERS viewers per
 * camera: the real plane process asks up to 4 nodes per request (at once), re-checks each row's
 * camera in the database and pages with the cursor. Prints the first page's rate and latency over
 * CONNECTIONS connections beside the rate of one of those nodes answering its own list directly
 * (the in-run baseline), and the time to walk the whole fleet list page by page; the plane's CPU
 * per request of the first page's run.
 * NODE_KIND=fake (the default): test doubles, HTTP servers in this process answering a canned list
 * (the cheapest a node's list can be). NODE_KIND=real: argus-node processes, one camera each (a
 * synthetic source) with CAMERAS x VIEWERS real viewer sessions (sessions-real-nodes.ts).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/sessions.js
 * Knobs: NODE_KIND (fake), NODES (8), CAMERAS (25 per node), VIEWERS (2 per camera), LIMIT (100),
 * CONNECTIONS (8), DURATION_S (5).
 */
import autocannon from 'autocannon';
import { benchDatabase, startPlaneProcess, loginToken, processCpuMs, BOOT } from './harness.js';
import { OpsNode } from '../../test/plane/node-ops/ops-node.js';
import { startRealNodes } from './sessions-real-nodes.js';

const NODE_KIND = process.env.NODE_KIND ?? 'fake';
if (NODE_KIND !== 'fake' && NODE_KIND !== 'real') throw new Error('NODE_KIND is fake or real');

const NODES = Number(process.env.NODES ?? 8);
const CAMERAS = Number(process.env.CAMERAS ?? 25);
const VIEWERS = Number(process.env.VIEWERS ?? 2);
const LIMIT = Number(process.env.LIMIT ?? 100);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const DURATION_S = Number(process.env.DURATION_S ?? 5);

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url);
const token = await loginToken(plane.base, BOOT);
const auth = { authorization: `Bearer ${token}` };
const api = async (method: string, path: string, body: unknown) => {
  const r = await fetch(`${plane.base}${path}`, {
    method,
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<Record<string, any>>;
};

// The nodes' own list: URL, token and a way to stop them.
const nodes: Array<{ url: string; token: string; stop(): Promise<void> }> = [];
if (NODE_KIND === 'real') nodes.push(...(await startRealNodes(api, NODES, CAMERAS * VIEWERS)));
for (let i = 0; NODE_KIND === 'fake' && i < NODES; i++) {
  const fake = await OpsNode.start();
  const { id } = await api('POST', '/api/v1/nodes', { name: `bench-node-${i}`, url: fake.url, api_token: fake.token });
  for (let c = 0; c < CAMERAS; c++) {
    const cam = await api('POST', '/api/v1/cameras', {
      name: `bench-cam-${i}-${c}`,
      node_id: id,
      main_source: 'rtsp://10.0.0.1/a',
    });
    for (let v = 0; v < VIEWERS; v++) fake.viewer(`${cam.id}_main`, { subject_name: `viewer ${i}.${c}.${v}` });
  }
  nodes.push({ url: fake.url, token: fake.token, stop: () => fake.close() });
}
// A real node has one camera with all the node's viewers (one synthetic source per node).
const cameraCount = NODE_KIND === 'real' ? NODES : NODES * CAMERAS;
console.log(`${NODES} ${NODE_KIND} nodes, ${cameraCount} cameras, ${NODES * CAMERAS * VIEWERS} viewers`);

async function walk(): Promise<{ pages: number; rows: number; ms: number }> {
  const t0 = performance.now();
  let cursor: string | null = null;
  let pages = 0;
  let rows = 0;
  do {
    const r = await fetch(`${plane.base}/api/v1/sessions?limit=${LIMIT}${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: auth,
    });
    const body = (await r.json()) as { items: unknown[]; next_cursor: string | null; partial_nodes: string[] };
    if (r.status !== 200 || body.partial_nodes.length)
      throw new Error(`page ${pages}: ${r.status} ${JSON.stringify(body).slice(0, 200)}`);
    pages++;
    rows += body.items.length;
    cursor = body.next_cursor;
  } while (cursor !== null);
  return { pages, rows, ms: performance.now() - t0 };
}

await walk(); // warm-up
const walks = [await walk(), await walk(), await walk()].sort((a, b) => a.ms - b.ms);
const cpu0 = await processCpuMs(plane.child.pid!);
const page = await autocannon({
  url: `${plane.base}/api/v1/sessions?limit=${LIMIT}`,
  headers: auth,
  connections: CONNECTIONS,
  duration: DURATION_S,
});
const planeCpuUs = ((await processCpuMs(plane.child.pid!)) - cpu0) * 1000;
const direct = await autocannon({
  url: `${nodes[0]!.url}/api/v1/sessions`,
  headers: { authorization: `Bearer ${nodes[0]!.token}` },
  connections: CONNECTIONS,
  duration: DURATION_S,
});

console.log(
  JSON.stringify(
    {
      node_kind: NODE_KIND,
      nodes: NODES,
      cameras: cameraCount,
      viewers: NODES * CAMERAS * VIEWERS,
      limit: LIMIT,
      connections: CONNECTIONS,
      first_page: {
        req_per_s: Math.round(page.requests.average),
        p50_ms: page.latency.p50,
        p99_ms: page.latency.p99,
        errors: page.errors + page.non2xx,
        plane_cpu_us_per_request: Math.round(planeCpuUs / Math.max(1, page.requests.total)),
      },
      node_direct: { req_per_s: Math.round(direct.requests.average), p99_ms: direct.latency.p99 },
      full_walk: { pages: walks[1]!.pages, rows: walks[1]!.rows, median_ms: Math.round(walks[1]!.ms) },
      plane_rss_mb: Math.round(await plane.rssMb()),
    },
    null,
    2,
  ),
);

await plane.stop();
await Promise.all(nodes.map((n) => n.stop()));
await db.drop();
process.exit(0);
