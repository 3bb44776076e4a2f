/**
 * 1024 audit SSE streams held open against the real plane process (32 users x 32 streams, the
 * per-user cap), then audit records published (logins) and their delivery to every stream
 * measured; prints the plane's RSS idle, with the streams open and after delivery.
 * Target (issue 2): 1024 streams under 300 MB RSS.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/sse-streams.js
 * Knobs: USERS (32), PER_USER (32), RECORDS (20).
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { createParser } from 'eventsource-parser';
import { benchDatabase, startPlaneProcess, loginToken, BOOT } from './harness.js';

const USERS = Number(process.env.USERS ?? 32);
const PER_USER = Number(process.env.PER_USER ?? 32);
const RECORDS = Number(process.env.RECORDS ?? 20);

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url);
const { hostname, port } = new URL(plane.base);
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

async function api(
  method: string,
  path: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const r = await fetch(plane.base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: r.status, body: await r.json().catch(() => null) };
}

const root = await loginToken(plane.base, BOOT);
const tokens: string[] = [];
for (let u = 0; u <= USERS; u++) {
  const creds = { login: `sse-bench-${u}`, password: `sse-bench-password-${u}` };
  const r = await api('POST', '/api/v1/users', root, { ...creds, role: 'admin' });
  if (r.status !== 201) throw new Error(`create user: ${r.status} ${JSON.stringify(r.body)}`);
  tokens.push(await loginToken(plane.base, creds));
}
const rssIdle = await plane.rssMb();

interface Stream {
  res: IncomingMessage;
  seen: Map<string, number>;
}
function open(token: string): Promise<{ status: number; stream?: Stream; body?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path: '/api/v1/audit/stream',
        agent,
        headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res
            .on('data', (c) => {
              body += c;
            })
            .on('end', () => resolve({ status: res.statusCode!, body }));
          return;
        }
        const seen = new Map<string, number>();
        const parser = createParser({
          onEvent: (e) => {
            seen.set(JSON.parse(e.data).object_id, performance.now());
          },
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => parser.feed(chunk));
        resolve({ status: 200, stream: { res, seen } });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const t0 = performance.now();
const streams: Stream[] = [];
for (let u = 0; u < USERS; u++) {
  const opened = await Promise.all(Array.from({ length: PER_USER }, () => open(tokens[u]!)));
  for (const o of opened) {
    if (o.status !== 200) throw new Error(`stream ${o.status} ${o.body}`);
    streams.push(o.stream!);
  }
}
const openMs = performance.now() - t0;
// One more, by a user with no stream yet: the process capacity (1024) answers 429 global.
const extra = await open(tokens[USERS]!);
await new Promise((r) => setTimeout(r, 500));
const rssOpen = await plane.rssMb();

// Publish: each login writes an audit record that every stream (same organisation) must get.
const published: Array<{ sid: string; at: number }> = [];
for (let i = 0; i < RECORDS; i++) {
  const r = await fetch(`${plane.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(BOOT),
  });
  const { token } = (await r.json()) as { token: string };
  const sid = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
  published.push({ sid, at: performance.now() });
}
const deadline = performance.now() + 15_000;
const expected = streams.length * RECORDS;
const delivered = () => streams.reduce((n, s) => n + published.filter((p) => s.seen.has(p.sid)).length, 0);
while (delivered() < expected && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
const lat: number[] = [];
for (const s of streams)
  for (const p of published) {
    const at = s.seen.get(p.sid);
    if (at !== undefined) lat.push(Math.max(0, at - p.at));
  }
lat.sort((a, b) => a - b);
const pct = (q: number) => +(lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] ?? NaN).toFixed(1);
const rssAfter = await plane.rssMb();

console.log(
  JSON.stringify(
    {
      streams_open: streams.length,
      users: USERS,
      per_user: PER_USER,
      open_all_ms: Math.round(openMs),
      beyond_capacity: { status: extra.status, body: extra.body ? JSON.parse(extra.body) : null },
      records_published: RECORDS,
      frames_expected: expected,
      frames_delivered: delivered(),
      delivery_ms: { p50: pct(0.5), p99: pct(0.99), max: pct(1) },
      plane_rss_mb: {
        idle: Math.round(rssIdle),
        streams_open: Math.round(rssOpen),
        after_delivery: Math.round(rssAfter),
      },
      target: '1024 streams under 300 MB RSS',
    },
    null,
    2,
  ),
);

for (const s of streams) s.res.destroy();
await plane.stop();
await db.drop();
process.exit(0);
