/**
 * Live event stream delivery: intake (POST /api/v1/events, batches of 100) at RATE events/s to
 * SUBSCRIBERS open GET /api/v1/events/stream responses, against the real plane executable on a
 * fresh PostgreSQL database. Latency is from the start of the batch's POST to the frame's arrival
 * at a subscriber (subject_ref carries the send time). Prints a table.
 *
 * Subscribers are operators (USERS of them, SUBSCRIBERS / USERS streams each, within the 32 per
 * user), each granted CAMERAS / USERS cameras, so camera rights are applied to every frame of
 * every stream; ADMIN_STREAMS more streams belong to the organisation's administrator and see
 * every event.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/event-stream.js
 *   (SUBSCRIBERS 1000, RATE 5000, DURATION_MS 10000, USERS 40, CAMERAS 400, ADMIN_STREAMS 0, BATCH 100)
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { BOOT, backendsCpuMs, backendsCpuSince, benchDatabase, loginToken, startPlaneProcess } from './harness.js';

const SUBSCRIBERS = Number(process.env.SUBSCRIBERS ?? 1000);
const RATE = Number(process.env.RATE ?? 5000);
const DURATION_MS = Number(process.env.DURATION_MS ?? 10_000);
const USERS = Number(process.env.USERS ?? 40);
const CAMERAS = Number(process.env.CAMERAS ?? 400);
const ADMIN_STREAMS = Number(process.env.ADMIN_STREAMS ?? 0);
const BATCH = Number(process.env.BATCH ?? 100);
const PASSWORD = 'bench-user-password-1';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
async function api(base: string, method: string, path: string, token: string, body?: unknown): Promise<any> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

function post(port: number, path: string, body: string, token: string): Promise<number> {
  return new Promise((res, rej) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          authorization: `Bearer ${token}`,
        },
      },
      (r) => {
        r.resume();
        r.on('end', () => res(r.statusCode ?? 0));
      },
    );
    req.on('error', rej);
    req.end(body);
  });
}

interface Sub {
  frames: number;
  resync: boolean;
  ended: boolean;
  res: IncomingMessage | null;
}
const latencies: number[] = [];
let measuring = false;

/** One SSE subscriber; frames are scanned for the send time in subject_ref, not parsed whole. */
function subscribe(port: number, token: string): Promise<Sub> {
  const sub: Sub = { frames: 0, resync: false, ended: false, res: null };
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/api/v1/events/stream', headers: { authorization: `Bearer ${token}` } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`stream ${res.statusCode}`));
          return;
        }
        sub.res = res;
        res.setEncoding('utf8');
        let tail = '';
        res.on('data', (chunk: string) => {
          const now = Date.now();
          const text = tail + chunk;
          let i = 0;
          for (;;) {
            const j = text.indexOf('"subject_ref":"t', i);
            if (j < 0) break;
            const k = text.indexOf('"', j + 16);
            if (k < 0) break;
            sub.frames++;
            if (measuring) latencies.push(now - Number(text.slice(j + 16, k)));
            i = k;
          }
          if (text.includes(': resync-required')) sub.resync = true;
          tail = text.slice(Math.max(i, text.length - 64));
        });
        res.on('end', () => {
          sub.ended = true;
        });
        resolve(sub);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url);
const port = Number(new URL(plane.base).port);
try {
  const root = await loginToken(plane.base, BOOT);
  const org = (await api(plane.base, 'POST', '/api/v1/orgs', root, { name: 'bench-org' })).id as string;
  await api(plane.base, 'POST', '/api/v1/users', root, {
    login: 'bench-admin',
    name: 'bench-admin',
    password: PASSWORD,
    role: 'admin',
    org_id: org,
  });
  const admin = await loginToken(plane.base, { login: 'bench-admin', password: PASSWORD });
  const node = (
    await api(plane.base, 'POST', '/api/v1/nodes', root, {
      name: 'bench-node',
      url: 'http://127.0.0.1:9',
      api_token: 'bench-node-token-123456',
    })
  ).id;
  const cams: string[] = [];
  for (let i = 0; i < CAMERAS; i++)
    cams.push(
      (
        await api(plane.base, 'POST', '/api/v1/cameras', admin, {
          name: `cam-${i}`,
          node_id: node,
          main_source: 'rtsp://10.0.0.1/a',
        })
      ).id,
    );
  const secret = (
    await api(plane.base, 'POST', '/api/v1/module-tokens', admin, { name: 'bench', rate_limit: 1_000_000 })
  ).secret as string;
  const users: string[] = [];
  for (let u = 0; u < USERS; u++) {
    const id = (
      await api(plane.base, 'POST', '/api/v1/users', admin, {
        login: `op-${u}`,
        name: `op-${u}`,
        password: PASSWORD,
        role: 'user',
      })
    ).id;
    await api(plane.base, 'PUT', `/api/v1/users/${id}/grants`, admin, {
      camera_ids: cams.filter((_, i) => i % USERS === u),
      tag_ids: [],
    });
    users.push(await loginToken(plane.base, { login: `op-${u}`, password: PASSWORD }));
  }

  const subs: Sub[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) subs.push(await subscribe(port, users[i % USERS]!));
  for (let i = 0; i < ADMIN_STREAMS; i++) subs.push(await subscribe(port, admin));
  const cpu0 = await plane.cpuMs();

  // Paced intake: one batch every BATCH/RATE seconds, several in flight when the plane is slow.
  let sent = 0,
    failed = 0,
    k = 0;
  const intakeLat: number[] = [];
  const batchEvery = (1000 * BATCH) / RATE;
  async function run(ms: number) {
    const start = performance.now();
    const inflight = new Set<Promise<void>>();
    for (let b = 0; performance.now() - start < ms; b++) {
      const due = start + b * batchEvery;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      while (inflight.size >= 16) await Promise.race(inflight);
      const t0 = Date.now();
      const body = JSON.stringify({
        events: Array.from({ length: BATCH }, () => {
          const i = k++;
          return {
            detector: `lpr.plate.${i % 4}`,
            occurred_at: new Date(t0).toISOString(),
            camera_id: cams[i % cams.length],
            severity: i % 5,
            subject_type: 'plate',
            subject_ref: `t${t0}`,
            payload: { lane: i % 3 },
          };
        }),
      });
      const p = post(port, '/api/v1/events', body, secret)
        .then((status) => {
          if (status === 200) {
            if (measuring) {
              sent += BATCH;
              intakeLat.push(Date.now() - t0);
            }
          } else failed++;
        })
        .finally(() => inflight.delete(p));
      inflight.add(p);
    }
    await Promise.all(inflight);
  }
  await run(1500); // warm-up
  await new Promise((r) => setTimeout(r, 1000));
  const before = subs.reduce((s, x) => s + x.frames, 0);
  const runCpu0 = await plane.cpuMs();
  const pg0 = await backendsCpuMs(db.url);
  measuring = true;
  const t0 = performance.now();
  await run(DURATION_MS);
  const secs = (performance.now() - t0) / 1000;
  await new Promise((r) => setTimeout(r, 2000)); // the last frames in flight
  measuring = false;
  const cpu = (await plane.cpuMs()) - cpu0;
  const runCpu = (await plane.cpuMs()) - runCpu0;
  const pgCpu = backendsCpuSince(pg0, await backendsCpuMs(db.url));
  const rss = await plane.rssMb();
  const delivered = subs.reduce((s, x) => s + x.frames, 0) - before;
  // each operator stream sees the events of its user's cameras; admin streams see all
  const expected = Math.round(sent * (SUBSCRIBERS / USERS) + sent * ADMIN_STREAMS);
  latencies.sort((a, b) => a - b);
  intakeLat.sort((a, b) => a - b);
  const q = (arr: number[], p: number) =>
    arr.length ? arr[Math.min(arr.length - 1, Math.floor(p * arr.length))]!.toFixed(0) : '-';

  console.log(
    `\nLive event stream, fresh database, ${SUBSCRIBERS} operator streams (${USERS} users, ${CAMERAS} cameras, rights per frame)` +
      `${ADMIN_STREAMS ? ` + ${ADMIN_STREAMS} administrator streams` : ''}, target ${RATE} events/s in batches of ${BATCH}, ${secs.toFixed(1)} s`,
  );
  console.log('| measure | value |');
  console.log('|---|---|');
  console.log(`| events accepted | ${sent} (${(sent / secs).toFixed(0)}/s), failed batches ${failed} |`);
  console.log(`| intake reply p50 / p99 ms | ${q(intakeLat, 0.5)} / ${q(intakeLat, 0.99)} |`);
  console.log(`| frames delivered | ${delivered} of ${expected} expected (${(delivered / secs).toFixed(0)}/s) |`);
  console.log(
    `| delivery latency p50 / p90 / p99 / max ms | ${q(latencies, 0.5)} / ${q(latencies, 0.9)} / ${q(latencies, 0.99)} / ${latencies.length ? latencies[latencies.length - 1] : '-'} |`,
  );
  console.log(`| streams ended with resync-required | ${subs.filter((s) => s.resync).length} |`);
  console.log(
    `| plane CPU during the run | ${((cpu / 1000 / secs) * 100).toFixed(0)}% of one core; RSS ${rss.toFixed(0)} MB |`,
  );
  console.log(
    `| CPU per accepted event (measured run and drain): plane / PostgreSQL backends | ${sent ? ((1000 * runCpu) / sent).toFixed(0) : '-'} / ${sent ? ((1000 * pgCpu) / sent).toFixed(0) : '-'} µs |`,
  );
  for (const s of subs) s.res?.destroy();
} finally {
  await plane.stop();
  await db.drop();
}
process.exit(0);
