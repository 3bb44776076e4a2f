/**
 * Event intake throughput: POST /api/v1/events through HTTP in batches of 100 against the real
 * plane executable (a child process on a fresh PostgreSQL database), next to a raw COPY of the
 * same rows into the same table in the same run, then single-event requests (batches of 1). Prints
 * a table with the CPU time per event of the plane process and of its PostgreSQL backends (the
 * steady figure on a shared machine; wall-clock rates move with the neighbours' load).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/intake.js
 *   (DURATION_MS default 10000, CONCURRENCY default 16, BATCH default 100,
 *    SINGLE_CONCURRENCY default 32 and SINGLE_MS default DURATION_MS for batches of 1 (SINGLE_MS=0 skips them),
 *    BENCH_PLANE_PROF=<dir> writes a --cpu-prof of the plane there)
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes, randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import postgres from 'postgres';
import { v7 as uuidv7 } from 'uuid';
import { processCpuMs } from './harness.js';
import { freePort } from '../net.js';
import { benchServerUrl } from '../harness.js';

const BASE = benchServerUrl();
const DURATION_MS = Number(process.env.DURATION_MS ?? 10_000);
// 16 modules uploading at once, as a fleet's analytics modules do. With 8 the figure is ~10% lower
// (27,900 against 30,800 events/s on the quiet machine): fewer batches wait to share a statement.
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 16);
const BATCH = Number(process.env.BATCH ?? 100);
const SINGLE_CONCURRENCY = Number(process.env.SINGLE_CONCURRENCY ?? 32);
const SINGLE_MS = Number(process.env.SINGLE_MS ?? DURATION_MS);
const PASSWORD = 'bench-password-1';

const agent = new Agent({ keepAlive: true, maxSockets: Math.max(CONCURRENCY, SINGLE_CONCURRENCY) + 2 });
function http(
  port: number,
  method: string,
  path: string,
  body: string | null,
  token?: string,
): Promise<{ status: number; json: any }> {
  return new Promise((res, rej) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: {
          ...(body !== null ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
      },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c) => chunks.push(c));
        r.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          res({ status: r.statusCode ?? 0, json: text.startsWith('{') ? JSON.parse(text) : text });
        });
      },
    );
    req.on('error', rej);
    if (body !== null) req.write(body);
    req.end();
  });
}

// A fresh database for this run.
const dbName = `argus_bench_${randomBytes(4).toString('hex')}`;
const admin = postgres(BASE, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database ${dbName}`);
const url = new URL(BASE);
url.pathname = `/${dbName}`;
const dataDir = await mkdtemp(join(tmpdir(), 'argus-bench-'));
const port = await freePort();
await writeFile(
  join(dataDir, 'plane.toml'),
  `[network]\nlisten = "127.0.0.1:${port}"\npublic_url = "http://127.0.0.1:${port}"\n[logging]\nminimum_level = "warn"\n`,
);

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const child = spawn(
  process.execPath,
  [
    ...(process.env.BENCH_PLANE_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PLANE_PROF}`] : []),
    join(root, 'src', 'plane', 'main.js'),
    'serve',
    '--config',
    join(dataDir, 'plane.toml'),
  ],
  {
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      ARGUS_BOOTSTRAP_LOGIN: 'root',
      ARGUS_BOOTSTRAP_PASSWORD: PASSWORD,
      RUST_LOG: 'warn',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
await new Promise<void>((res, rej) => {
  child.stdout!.on('data', (d: Buffer) => {
    if (d.toString().includes('database ready')) res();
  });
  child.on('exit', (code) => rej(new Error(`plane exited ${code}`)));
});

let sql: ReturnType<typeof postgres> | null = null;
try {
  const login = await http(port, 'POST', '/api/v1/auth/login', JSON.stringify({ login: 'root', password: PASSWORD }));
  const session = login.json.token as string;
  const node = await http(
    port,
    'POST',
    '/api/v1/nodes',
    JSON.stringify({ name: 'bench-node', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' }),
    session,
  );
  const cams: string[] = [];
  for (let i = 0; i < 8; i++) {
    cams.push(
      (
        await http(
          port,
          'POST',
          '/api/v1/cameras',
          JSON.stringify({ name: `cam-${i}`, node_id: node.json.id, main_source: 'rtsp://10.0.0.1/a' }),
          session,
        )
      ).json.id,
    );
  }
  const tok = await http(
    port,
    'POST',
    '/api/v1/module-tokens',
    JSON.stringify({ name: 'bench', rate_limit: 1_000_000 }),
    session,
  );
  const secret = tok.json.secret as string;

  const item = (i: number) => ({
    detector: `lpr.plate.${i % 4}`,
    occurred_at: new Date().toISOString(),
    camera_id: cams[i % cams.length],
    severity: 'info',
    confidence: 0.9,
    subject_type: 'plate',
    subject_ref: `AB${i % 1000}`,
    detector_title: { en: 'Plate read' },
    payload: { plate: `AB${i % 1000}`, box: [10, 20, 110, 60], lane: i % 3 },
  });
  // Pre-serialised bodies: the client does as little as possible on the shared cores.
  const bodiesOf = (size: number) =>
    Array.from({ length: 32 }, (_, b) =>
      JSON.stringify({ events: Array.from({ length: size }, (_, i) => item(b * size + i)) }),
    );

  /** CPU (user + system, ms) of the plane process and of the PostgreSQL backends serving this database. */
  const backendPids = async () =>
    (await admin`select pid from pg_stat_activity where datname = ${dbName} and backend_type = 'client backend'`).map(
      (r) => Number(r.pid),
    );
  async function cpuNow(): Promise<{ plane: number; pg: Map<number, number> }> {
    const pg = new Map<number, number>();
    for (const pid of await backendPids()) pg.set(pid, await processCpuMs(pid));
    return { plane: await processCpuMs(child.pid!), pg };
  }
  function cpuSince(a: { plane: number; pg: Map<number, number> }, b: { plane: number; pg: Map<number, number> }) {
    let pg = 0;
    for (const [pid, ms] of b.pg) pg += ms - (a.pg.get(pid) ?? ms); // a backend born mid-run counts from its first sample
    return { plane: b.plane - a.plane, pg };
  }

  /** POSTs `size`-event batches on `conns` connections for `ms` after a 1.5 s warm-up. */
  async function run(size: number, conns: number, ms: number) {
    const bodies = bodiesOf(size);
    const counts = { events: 0, batches: 0, failed: 0 };
    const latencies: number[] = [];
    async function worker(until: number, measure: boolean) {
      let k = 0;
      while (performance.now() < until) {
        const t0 = performance.now();
        const r = await http(port, 'POST', '/api/v1/events', bodies[k++ % bodies.length]!, secret);
        if (!measure) continue;
        if (r.status === 200) {
          counts.batches++;
          counts.events += size;
          latencies.push(performance.now() - t0);
        } else counts.failed++;
      }
    }
    await Promise.all(Array.from({ length: conns }, () => worker(performance.now() + 1500, false)));
    const c0 = await cpuNow();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: conns }, () => worker(t0 + ms, true)));
    const secs = (performance.now() - t0) / 1000;
    const cpu = cpuSince(c0, await cpuNow());
    latencies.sort((a, b) => a - b);
    const p = (q: number) =>
      latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]?.toFixed(1) ?? '-';
    return { ...counts, secs, rate: counts.events / secs, cpu, p50: p(0.5), p99: p(0.99) };
  }

  const batched = await run(BATCH, CONCURRENCY, DURATION_MS);
  const httpSecs = batched.secs,
    httpRate = batched.rate;
  // Before the COPY: its rows take stream positions no notice names, which the plane's ring then reads.
  const single = SINGLE_MS > 0 ? await run(1, SINGLE_CONCURRENCY, SINGLE_MS) : null;

  // The same rows by COPY, into the same table, in the same run.
  sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const [{ org_id, token_id, node_id }] = await sql`select org_id, token_id, node_id from events limit 1`;
  const n = batched.events;
  // COPY cannot draw from the sequence: reserve a block of stream positions for the copied rows.
  const [{ head }] = await sql`select setval('event_seq', (select last_value from event_seq) + ${n}) - ${n} as head`;
  const esc = (s: string) => s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n');
  function* lines() {
    let seq = Number(head);
    for (let i = 0; i < n; i += 1000) {
      let chunk = '';
      for (let j = i; j < Math.min(n, i + 1000); j++) {
        const it = item(j);
        const now = Date.now();
        chunk +=
          [
            uuidv7({ msecs: now }),
            new Date(now).toISOString(),
            ++seq,
            org_id,
            it.camera_id,
            node_id,
            token_id,
            'camera',
            it.detector,
            esc(JSON.stringify(it.detector_title)),
            1,
            it.confidence,
            'f',
            '\\N',
            '\\N',
            it.subject_type,
            it.subject_ref,
            '\\N',
            '[]',
            '{}',
            esc(JSON.stringify(it.payload)),
            '[]',
            esc(`'${it.detector.split('.').join("' '")}' 'plate' '${it.subject_ref.toLowerCase()}' 'read'`),
          ].join('\t') + '\n';
      }
      yield chunk;
    }
  }
  const [{ pid: copyPid }] = await sql`select pg_backend_pid() as pid`;
  const copyCpu0 = await processCpuMs(Number(copyPid));
  const c0 = performance.now();
  const writable =
    await sql`copy events (id, occurred_at, seq, org_id, camera_id, node_id, token_id, category, detector, detector_title,
    severity, confidence, "interval", ended_at, template_id, subject_type, subject_ref, ext_id, list_values, fields, payload, attachments, search)
    from stdin`.writable();
  await pipeline(Readable.from(lines()), writable);
  const copySecs = (performance.now() - c0) / 1000;
  const copyRate = n / copySecs;
  const copyCpu = (await processCpuMs(Number(copyPid))) - copyCpu0;
  await sql.end();
  sql = null;
  const us = (ms: number, events: number) => (events ? ((1000 * ms) / events).toFixed(1) : '-');

  console.log(
    `\nEvent intake, fresh database, batches of ${BATCH} on ${CONCURRENCY} connections; batches of 1 on ${SINGLE_CONCURRENCY}`,
  );
  console.log(
    '| path | events | seconds | events/s | share of COPY | plane CPU µs/event | PostgreSQL CPU µs/event | request p50 / p99 ms |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(
    `| POST /api/v1/events, batches of ${BATCH} | ${n} | ${httpSecs.toFixed(1)} | ${httpRate.toFixed(0)} | ${((100 * httpRate) / copyRate).toFixed(0)}% | ${us(batched.cpu.plane, n)} | ${us(batched.cpu.pg, n)} | ${batched.p50} / ${batched.p99} |`,
  );
  console.log(
    `| COPY of the same rows into events | ${n} | ${copySecs.toFixed(1)} | ${copyRate.toFixed(0)} | 100% | - | ${us(copyCpu, n)} | - |`,
  );
  if (single)
    console.log(
      `| POST /api/v1/events, batches of 1 | ${single.events} | ${single.secs.toFixed(1)} | ${single.rate.toFixed(0)} | - | ${us(single.cpu.plane, single.events)} | ${us(single.cpu.pg, single.events)} | ${single.p50} / ${single.p99} |`,
    );
  console.log(`failed requests: ${batched.failed} (batches of ${BATCH}), ${single?.failed ?? 0} (batches of 1)`);
} finally {
  await sql?.end();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  agent.destroy();
  await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
  await admin.end();
  await rm(dataDir, { recursive: true, force: true });
}
void randomUUID;
