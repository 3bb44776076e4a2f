/**
 * The plane's resident memory on a fresh fleet (issue 25, item 17: under 300 MB with the embedded
 * database), beside the same plane on a PostgreSQL server measured in the same run. Each plane is
 * started on an empty database, signed in to once (a scrypt, a session, an audit record), asked for
 * the console's index and its first feed page, and left to settle before its RSS is read from /proc.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/fresh-rss.js
 * Knobs: SETTLE_MS (3000).
 */
import { benchDatabase, loginToken, startPlaneProcess, BOOT, type BenchPlane } from './harness.js';

const SETTLE_MS = Number(process.env.SETTLE_MS ?? 3000);

async function measure(plane: BenchPlane): Promise<{ ready: number; used: number }> {
  const ready = await plane.rssMb();
  const token = await loginToken(plane.base, BOOT);
  await (await fetch(`${plane.base}/live`)).arrayBuffer();
  const feed = await fetch(`${plane.base}/api/v1/events?limit=100`, { headers: { authorization: `Bearer ${token}` } });
  if (feed.status !== 200) throw new Error(`feed: ${feed.status} ${await feed.text()}`);
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  return { ready, used: await plane.rssMb() };
}

// An empty DATABASE_URL and no [database] url in plane.toml: the embedded database in the plane's folder.
const embedded = await startPlaneProcess('');
let pglite: { ready: number; used: number };
try {
  pglite = await measure(embedded);
} finally {
  await embedded.stop();
}

const db = await benchDatabase();
let server: { ready: number; used: number };
try {
  const plane = await startPlaneProcess(db.url);
  try {
    server = await measure(plane);
  } finally {
    await plane.stop();
  }
} finally {
  await db.drop();
}

const mb = (x: number) => Math.round(x);
console.log('| plane | RSS when ready (MB) | RSS after sign-in and first pages (MB) |');
console.log('|---|---|---|');
console.log(`| embedded database (PGlite) | ${mb(pglite.ready)} | ${mb(pglite.used)} |`);
console.log(`| PostgreSQL server | ${mb(server.ready)} | ${mb(server.used)} |`);
console.log(
  JSON.stringify({
    target_mb: 300,
    embedded_rss_mb: { ready: mb(pglite.ready), used: mb(pglite.used) },
    postgres_rss_mb: { ready: mb(server.ready), used: mb(server.used) },
  }),
);
