/**
 * Read replicas (issue 26; docs/deployment.md, Read replicas): the same plane executable, first on
 * a primary alone, then with `[database] read_url` naming the primary's hot standby, both servers
 * started by this bench on this machine (test/plane/db/pg-pair.ts: streaming, synchronous). For each:
 * analytics batches per second (WORKERS clients, 4 heavy queries a batch), feed pages per second
 * (CONCURRENCY clients, 100-row pages), and event intake (batches of 10) alone and while the
 * analytics load runs: the intake kept is the second against the first, each of the same run.
 * Run: npm run build && node dist/bench/plane/read-replica.js
 *   (EVENTS default 20000, WORKERS default 4, CONCURRENCY default 8, DURATION_S per figure default 5)
 */
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { PgPair } from '../../test/plane/db/pg-pair.js';
import { BOOT, loginToken, startPlaneProcess, type BenchPlane } from './harness.js';

const EVENTS = Number(process.env.EVENTS ?? 20_000);
const WORKERS = Number(process.env.WORKERS ?? 4);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const DURATION_S = Number(process.env.DURATION_S ?? 5);
const DAY_MS = 86_400_000;

async function call(base: string, method: string, path: string, body: unknown, token: string) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return {
    status: r.status,
    json: (await r.json().catch(() => null)) as any,
    retryAfter: r.headers.get('retry-after'),
  };
}

/** Clients looping `one` for DURATION_S; answers by status. A 429 is waited out as its Retry-After says. */
async function load(clients: number, one: () => ReturnType<typeof call>): Promise<{ ok: number; other: number }> {
  const until = Date.now() + DURATION_S * 1000;
  let ok = 0,
    other = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (Date.now() < until) {
        const r = await one();
        if (r.status === 200) ok++;
        else other++;
        if (r.status === 429 || r.status === 503)
          await new Promise((res) => setTimeout(res, Number(r.retryAfter ?? 1) * 1000));
      }
    }),
  );
  return { ok, other };
}

const pair = await PgPair.create();
const primaryUrl = pair.url(pair.primaryPort, 'argus');
const standbyUrl = pair.url(pair.standbyPort, 'argus');
const admin = postgres(pair.url(pair.primaryPort), { max: 1, onnotice: () => {} });
await admin.unsafe('create database argus');
await admin.end();
const db = postgres(primaryUrl, { max: 2, onnotice: () => {} });

/** Organisation, node, four cameras, a template, EVENTS events over 30 days and a module token: once. */
async function world(base: string) {
  const root = await loginToken(base, BOOT);
  const api = async (method: string, path: string, body: unknown, token = root) => {
    const r = await call(base, method, path, body, token);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
    return r.json;
  };
  const node = (
    await api('POST', '/api/v1/nodes', { name: 'n', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' })
  ).id;
  const org = (await api('POST', '/api/v1/orgs', { name: 'bench' })).id as string;
  const creds = { login: 'bench-admin', password: 'bench-password-1' };
  await api('POST', '/api/v1/users', { ...creds, name: 'bench', role: 'admin', org_id: org });
  const token = await loginToken(base, creds);
  const cams: string[] = [];
  for (let i = 0; i < 4; i++)
    cams.push(
      (await api('POST', '/api/v1/cameras', { name: `c${i}`, node_id: node, main_source: 'rtsp://10.0.0.1/a' }, token))
        .id,
    );
  const doc = { detector_match: 'lpr*', fields: [{ key: 'plate', source: '/plate', type: 'string' }] };
  const tpl = (await api('POST', '/api/v1/templates', { name: 'lpr', doc }, token)).id as string;
  const start = Date.now() - 30 * DAY_MS + 60_000;
  const step = Math.floor((30 * DAY_MS - 120_000) / EVENTS);
  await db`insert into events (id, occurred_at, seq, org_id, camera_id, node_id, category, detector, severity, "interval", template_id, list_values, fields, payload, attachments, search)
    select gen_random_uuid(), to_timestamp((${start}::bigint + g::bigint * ${step}) / 1000.0), nextval('event_seq'), ${org}::uuid,
      (${cams}::uuid[])[1 + g % 4], ${node}::uuid, 'camera', 'lpr.plate', 1, false, ${tpl}::uuid,
      '[]'::jsonb, jsonb_build_object('plate', 'P' || (g % 500)), '{}'::jsonb, '[]'::jsonb, ''
    from generate_series(1, ${EVENTS}) g`;
  await db.unsafe('vacuum (analyze) events');
  const mod = (await api('POST', '/api/v1/module-tokens', { name: 'm', rate_limit: 1_000_000 }, token))
    .secret as string;
  return { token, tpl, cams, mod };
}

/** The figures of one plane process (primary only, or with the standby as its replica). */
async function measure(plane: BenchPlane, w: Awaited<ReturnType<typeof world>>) {
  const heavy = (i: number) => ({
    from: new Date(Date.now() - 30 * DAY_MS).toISOString(),
    to: new Date().toISOString(),
    measure: 'count_events',
    bucket: i % 2 ? 'hour' : 'day',
    group_by: i % 2 ? 'field' : 'camera',
    ...(i % 2 ? { group_field: { template_id: w.tpl, key: 'plate' } } : {}),
    top_limit: 100,
  });
  const batch = () =>
    call(
      plane.base,
      'POST',
      '/api/v1/event-analytics/query-batch',
      { queries: [0, 1, 2, 3].map((i) => ({ key: `q${i}`, query: heavy(i) })) },
      w.token,
    );
  const feed = () => call(plane.base, 'GET', '/api/v1/events?limit=100', undefined, w.token);
  let n = 0;
  const intake = () =>
    call(
      plane.base,
      'POST',
      '/api/v1/events',
      {
        events: Array.from({ length: 10 }, () => ({
          occurred_at: new Date().toISOString(),
          detector: 'bench.intake',
          camera_id: w.cams[n++ % 4],
        })),
      },
      w.mod,
    );
  await load(2, feed); // warm-up of both pools
  const batches = await load(WORKERS, batch);
  const pages = await load(CONCURRENCY, feed);
  const intakeAlone = await load(4, intake);
  const [intakeLoaded, batchesLoaded] = await Promise.all([load(4, intake), load(WORKERS, batch)]);
  const health = (await (await fetch(`${plane.base}/health`)).json()) as { replicas?: unknown };
  return {
    batches_per_s: batches.ok / DURATION_S,
    batch_not_200: batches.other,
    feed_pages_per_s: pages.ok / DURATION_S,
    feed_not_200: pages.other,
    intake_alone_events_per_s: (intakeAlone.ok * 10) / DURATION_S,
    intake_under_analytics_events_per_s: (intakeLoaded.ok * 10) / DURATION_S,
    batches_under_intake_per_s: batchesLoaded.ok / DURATION_S,
    intake_kept: intakeLoaded.ok / Math.max(1, intakeAlone.ok),
    replicas: health.replicas ?? null,
  };
}

let plane: BenchPlane | null = null;
try {
  plane = await startPlaneProcess(primaryUrl, '[sweeper]\nenabled = false\n');
  const w = await world(plane.base);
  const primaryOnly = await measure(plane, w);
  await plane.stop();
  plane = await startPlaneProcess(primaryUrl, `[sweeper]\nenabled = false\n[database]\nread_url = "${standbyUrl}"\n`);
  // The replica is used once its first lag check has answered.
  for (let i = 0; i < 200; i++) {
    const h = (await (await fetch(`${plane.base}/health`)).json()) as { replicas?: Array<{ used: boolean }> };
    if (h.replicas?.[0]?.used) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const withReplica = await measure(plane, w);
  const f = (x: number) => x.toFixed(1);
  console.log(
    `\n${EVENTS} events, ${WORKERS} analytics clients (4 queries a batch), ${CONCURRENCY} feed clients, ${DURATION_S} s each; both servers on this machine; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log('| figure | primary only | primary + replica | ratio |\n|---|---|---|---|');
  const line = (name: string, a: number, b: number) =>
    console.log(`| ${name} | ${f(a)} | ${f(b)} | ${(b / a).toFixed(2)} |`);
  line('analytics batches/s', primaryOnly.batches_per_s, withReplica.batches_per_s);
  line('feed pages/s (100 rows)', primaryOnly.feed_pages_per_s, withReplica.feed_pages_per_s);
  line('intake events/s alone', primaryOnly.intake_alone_events_per_s, withReplica.intake_alone_events_per_s);
  line(
    'intake events/s under analytics',
    primaryOnly.intake_under_analytics_events_per_s,
    withReplica.intake_under_analytics_events_per_s,
  );
  line('intake kept under analytics (%)', primaryOnly.intake_kept * 100, withReplica.intake_kept * 100);
  console.log(JSON.stringify({ primary_only: primaryOnly, with_replica: withReplica }));
} finally {
  await plane?.stop().catch(() => {});
  await db.end();
  await pair.destroy();
}
