/**
 * Mixed load (issue 10): RATE requests/s spread over the feed (GET /api/v1/events), cards
 * (GET /api/v1/events/{id}), intake (POST /api/v1/events, batches of 10) and the audit trail
 * (GET /api/v1/audit), plus STREAMS open SSE streams (half event stream, half audit stream), against
 * the real plane executable on a fresh PostgreSQL database, for a bounded time. Open loop: requests
 * leave on schedule whether or not earlier ones have answered. Prints the error count, p50/p99 per
 * kind and overall, SSE frames and unexpected stream ends, and the plane's RSS with its slope.
 *
 * Run: npm run build && TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres \
 *        node dist/bench/plane/mixed-load.js [--secs 600] [--rate 500] [--streams 256]
 * Loopback only; stops by itself after --secs (default 600 = 10 minutes).
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { BOOT, benchDatabase, loginToken, startPlaneProcess } from './harness.js';

const { values: flags } = parseArgs({
  options: {
    secs: { type: 'string', default: '600' },
    rate: { type: 'string', default: '500' },
    streams: { type: 'string', default: '256' },
  },
});
const SECS = Number(flags.secs);
const RATE = Number(flags.rate);
const STREAMS = Number(flags.streams);
const PER_USER = 32; // document 1: 32 live streams per user
/** Requests waiting for an answer beyond this are not sent but counted as skipped: an overloaded plane shows as a figure, not as a client that runs out of memory. */
const MAX_INFLIGHT = 1000;
const PASSWORD = 'bench-user-password-1';
if (!(SECS > 0 && RATE > 0 && STREAMS >= 0)) throw new Error('--secs, --rate and --streams take positive numbers');

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
let port = 0;

function call(method: string, path: string, token: string, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        timeout: 30_000,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', () => resolve({ status: -1, text: '' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: -1, text: '' }));
    req.end(body);
  });
}

async function json(method: string, path: string, token: string, body?: unknown): Promise<any> {
  const r = await call(method, path, token, body === undefined ? undefined : JSON.stringify(body));
  if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.text ? JSON.parse(r.text) : null;
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
};
/** Least-squares slope of (t, y). */
function slope(points: Array<[number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return num / den;
}

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url, '[sweeper]\nenabled = false\n');
port = Number(new URL(plane.base).port);
try {
  const root = await loginToken(plane.base, BOOT);
  const org = (await json('POST', '/api/v1/orgs', root, { name: 'mixed-load' })).id as string;
  const node = (
    await json('POST', '/api/v1/nodes', root, {
      name: 'n',
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).id as string;
  const cameras: string[] = [];
  for (let i = 0; i < 8; i++)
    cameras.push(
      (
        await json('POST', '/api/v1/cameras', root, {
          name: `cam${i}`,
          node_id: node,
          main_source: 'rtsp://10.0.0.1/a',
          org_id: org,
        })
      ).id,
    );
  const mod = (await json('POST', '/api/v1/module-tokens', root, { name: 'm', rate_limit: 1_000_000, org_id: org }))
    .secret as string;
  // Streamers: administrators of the organisation (they see every event and the organisation's audit).
  const streamers: string[] = [];
  for (let i = 0; i < Math.ceil(STREAMS / PER_USER); i++) {
    const login = `streamer${i}`;
    await json('POST', '/api/v1/users', root, { login, name: login, role: 'admin', org_id: org, password: PASSWORD });
    streamers.push(await loginToken(plane.base, { login, password: PASSWORD }));
  }
  // Some history for the feed, cards and the audit pages to read.
  const ids: string[] = [];
  const batch = (n: number) =>
    JSON.stringify({
      events: Array.from({ length: n }, (_, k) => ({
        occurred_at: new Date().toISOString(),
        detector: 'bench.mixed',
        camera_id: cameras[k % cameras.length],
        subject_ref: `s${k}`,
      })),
    });
  for (let i = 0; i < 20; i++)
    ids.push(...JSON.parse((await call('POST', '/api/v1/events', mod, batch(500))).text).results.map((r: any) => r.id));

  // SSE streams: half event stream, half audit stream.
  let frames = 0;
  let unexpectedEnds = 0;
  let stopping = false;
  const sse: Array<() => void> = [];
  for (let i = 0; i < STREAMS; i++) {
    const token = streamers[Math.floor(i / PER_USER)]!;
    const path = i % 2 ? '/api/v1/audit/stream' : '/api/v1/events/stream';
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`${path}: ${res.statusCode}`));
          return;
        }
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          let k = -1;
          while ((k = c.indexOf('\ndata: ', k + 1)) >= 0) frames++;
          if (c.startsWith('data: ')) frames++;
        });
        res.on('end', () => {
          if (!stopping) unexpectedEnds++;
        });
        res.on('error', () => {
          if (!stopping) unexpectedEnds++;
        });
        resolve();
      });
      req.on('error', reject);
      req.end();
      sse.push(() => req.destroy());
    });
  }

  type Kind = 'feed' | 'card' | 'intake' | 'audit';
  const lat: Record<Kind, number[]> = { feed: [], card: [], intake: [], audit: [] };
  const errors = new Map<string, number>();
  const rss: Array<[number, number]> = [];
  const t0 = performance.now();
  const rssTimer = setInterval(() => {
    void plane
      .rssMb()
      .then((mb) => rss.push([(performance.now() - t0) / 60_000, mb]))
      .catch(() => {});
  }, 5000);
  const pick = (): Kind => {
    const r = Math.random();
    return r < 0.3 ? 'feed' : r < 0.6 ? 'card' : r < 0.8 ? 'intake' : 'audit';
  };
  const inflight = new Set<Promise<void>>();
  let sent = 0;
  let skipped = 0;
  let tick = 0;
  const report = setInterval(() => {
    const s = Math.round((performance.now() - t0) / 1000);
    const errs = [...errors.values()].reduce((a, b) => a + b, 0);
    console.log(
      `  t=${s}s sent=${sent - skipped} skipped=${skipped} in-flight=${inflight.size} errors=${errs} frames=${frames} rss=${rss.at(-1)?.[1].toFixed(0) ?? '?'} MB`,
    );
  }, 60_000);
  while (performance.now() - t0 < SECS * 1000) {
    const due = t0 + (sent * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    if (inflight.size >= MAX_INFLIGHT) {
      skipped++;
      sent++;
      continue;
    }
    const kind = pick();
    const started = performance.now();
    let p: Promise<{ status: number; text: string }>;
    switch (kind) {
      case 'feed':
        p = call('GET', '/api/v1/events?limit=50', root);
        break;
      case 'card':
        p = call('GET', `/api/v1/events/${ids[Math.floor(Math.random() * ids.length)]}`, root);
        break;
      case 'intake':
        p = call('POST', '/api/v1/events', mod, batch(10));
        break;
      default:
        p = call('GET', '/api/v1/audit?limit=100', root);
    }
    const done: Promise<void> = p
      .then((r) => {
        lat[kind].push(performance.now() - started);
        if (r.status < 200 || r.status >= 300) {
          let code = '';
          try {
            code = String(JSON.parse(r.text).error ?? '');
          } catch {
            /* not JSON */
          }
          const key = `${kind} ${r.status}${code ? ` ${code}` : ''}`;
          errors.set(key, (errors.get(key) ?? 0) + 1);
        } else if (kind === 'intake' && ids.length < 100_000 && ++tick % 10 === 0)
          ids.push(JSON.parse(r.text).results[0].id);
      })
      .finally(() => inflight.delete(done));
    inflight.add(done);
    sent++;
  }
  await Promise.all(inflight);
  clearInterval(rssTimer);
  clearInterval(report);
  const elapsed = (performance.now() - t0) / 1000;
  stopping = true;
  for (const close of sse) close();

  const all = Object.values(lat).flat();
  const errCount = [...errors.values()].reduce((a, b) => a + b, 0);
  // The slope over the second half: the first minutes hold warm-up (JIT, caches, pools).
  const half = rss.filter(([m]) => m >= rss.at(-1)![0] / 2);
  console.log(
    `mixed load: ${SECS} s at ${RATE} req/s target, ${STREAMS} SSE streams (${Math.ceil(STREAMS / 2)} event, ${Math.floor(STREAMS / 2)} audit)`,
  );
  const refused = [...errors].filter(([k]) => k.split(' ')[1] === '429').reduce((a, [, n]) => a + n, 0);
  console.log(
    `requests: ${sent - skipped} answered in ${elapsed.toFixed(1)} s = ${((sent - skipped) / elapsed).toFixed(0)} req/s; skipped (over ${MAX_INFLIGHT} in flight): ${skipped}`,
  );
  console.log(
    `errors: ${errCount} (429 refusals among them: ${refused})${errors.size ? ` ${JSON.stringify(Object.fromEntries(errors))}` : ''}`,
  );
  console.log(`latency ms: all p50 ${pct(all, 0.5).toFixed(1)} p99 ${pct(all, 0.99).toFixed(1)}`);
  for (const k of Object.keys(lat) as Kind[])
    console.log(
      `  ${k.padEnd(6)} n=${lat[k].length} p50 ${pct(lat[k], 0.5).toFixed(1)} p99 ${pct(lat[k], 0.99).toFixed(1)}`,
    );
  console.log(`SSE: ${frames} frames received, ${unexpectedEnds} streams ended early`);
  console.log(
    `RSS: ${rss[0]?.[1].toFixed(0)} MB at start, ${rss.at(-1)?.[1].toFixed(0)} MB at end; slope ${slope(rss).toFixed(2)} MB/min overall, ${slope(half).toFixed(2)} MB/min over the second half (${rss.length} samples)`,
  );
} finally {
  await plane.stop();
  await db.drop();
  agent.destroy();
}
