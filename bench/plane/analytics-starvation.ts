/**
 * One operator's analytics against another organisation's feed (issue 25, finding 1): the probe
 * ran ten parallel queries {30 days, bucket hour, group_by field, top_limit 100} as an operator of
 * organisation A over 20,000 events; organisation B's feed went from p99 66 ms to 10.2 s and then
 * 503 db_unavailable. Through the real plane executable over HTTP: B's feed one request at a time
 * with no load (the baseline, same run), then again while WORKERS clients of A each send the heavy
 * query in a loop (a 429 analytics_busy is waited out as its Retry-After says, as a client should).
 * Prints B's feed p50/p99 beside the baseline, its non-200 answers, A's answers by status, and the
 * most analytics statements PostgreSQL ran at once (sampled in pg_stat_activity) against the pool.
 * Target (the issue): B's feed p99 under load below 200 ms and no 503.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/analytics-starvation.js
 *   (EVENTS default 20000, WORKERS default 10, DURATION_S of the load default 20, BASELINE requests default 200)
 */
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { benchDatabase, BOOT, loginToken, startPlaneProcess } from './harness.js';

const EVENTS = Number(process.env.EVENTS ?? 20_000);
const WORKERS = Number(process.env.WORKERS ?? 10);
const DURATION_S = Number(process.env.DURATION_S ?? 20);
const BASELINE = Number(process.env.BASELINE ?? 200);
const DAY_MS = 86_400_000;
const POOL_MAX = 10;

const target = await benchDatabase();
const plane = await startPlaneProcess(target.url, '[sweeper]\nenabled = false\n');
const db = postgres(target.url, { max: 2, onnotice: () => {} });

async function call(
  method: string,
  path: string,
  body: unknown,
  token: string,
): Promise<{ status: number; json: any; retryAfter: string | null }> {
  const r = await fetch(`${plane.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, json: await r.json().catch(() => null), retryAfter: r.headers.get('retry-after') };
}
async function api(method: string, path: string, body: unknown, token: string): Promise<any> {
  const r = await call(method, path, body, token);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.json)}`);
  return r.json;
}
const pct = (xs: number[], q: number) =>
  xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]! : NaN;

/** An organisation with an administrator and an operator who sees the first two of its four cameras. */
async function org(root: string, name: string, node: string) {
  const id = (await api('POST', '/api/v1/orgs', { name }, root)).id as string;
  const login = (role: string) => ({ login: `${name}-${role}`, password: `${name}-password-1` });
  await api('POST', '/api/v1/users', { ...login('admin'), name, role: 'admin', org_id: id }, root);
  const admin = await loginToken(plane.base, login('admin'));
  const operatorId = (await api('POST', '/api/v1/users', { ...login('op'), name, role: 'user' }, admin)).id;
  const cams: string[] = [];
  for (let i = 0; i < 4; i++)
    cams.push(
      (
        await api(
          'POST',
          '/api/v1/cameras',
          { name: `${name}-cam-${i}`, node_id: node, main_source: 'rtsp://10.0.0.1/a' },
          admin,
        )
      ).id,
    );
  await api('PUT', `/api/v1/users/${operatorId}/grants`, { camera_ids: cams.slice(0, 2), tag_ids: [] }, admin);
  return { id, admin, operator: await loginToken(plane.base, login('op')), cams };
}

/** `n` events of a template with a string field `plate` of 500 values, over the last 30 days. */
async function seed(orgId: string, node: string, cams: string[], templateId: string | null, n: number): Promise<void> {
  const start = Date.now() - 30 * DAY_MS + 60_000;
  const step = Math.floor((30 * DAY_MS - 120_000) / n);
  await db`insert into events (id, occurred_at, seq, org_id, camera_id, node_id, category, detector, severity, "interval", template_id, list_values, fields, payload, attachments, search)
    select gen_random_uuid(), to_timestamp((${start}::bigint + g::bigint * ${step}) / 1000.0), nextval('event_seq'), ${orgId}::uuid,
      (${cams}::uuid[])[1 + g % 4], ${node}::uuid, 'camera', 'lpr.plate', 1, false, ${templateId}::uuid,
      '[]'::jsonb, jsonb_build_object('plate', 'P' || (g % 500)), '{}'::jsonb, '[]'::jsonb, ''
    from generate_series(1, ${n}) g`;
}

/** B's feed, one request at a time, until `stop()` says so; the latencies in ms and the non-200 answers. */
async function feed(token: string, stop: (i: number) => boolean): Promise<{ ms: number[]; failed: string[] }> {
  const ms: number[] = [];
  const failed: string[] = [];
  for (let i = 0; !stop(i); i++) {
    const t0 = performance.now();
    const r = await call('GET', '/api/v1/events?limit=50', undefined, token);
    ms.push(performance.now() - t0);
    if (r.status !== 200) failed.push(`${r.status} ${JSON.stringify(r.json)}`);
  }
  return { ms, failed };
}

try {
  const root = await loginToken(plane.base, BOOT);
  const node = (
    await api(
      'POST',
      '/api/v1/nodes',
      { name: 'bench-node', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' },
      root,
    )
  ).id;
  const a = await org(root, 'bench-a', node);
  const b = await org(root, 'bench-b', node);
  const tpl = (
    await api(
      'POST',
      '/api/v1/templates',
      { name: 'lpr', doc: { detector_match: 'lpr*', fields: [{ key: 'plate', source: '/plate', type: 'string' }] } },
      a.admin,
    )
  ).id;
  await seed(a.id, node, a.cams, tpl, EVENTS);
  await seed(b.id, node, b.cams, null, 2_000);
  await db.unsafe('vacuum (analyze) events');
  const heavy = () => ({
    from: new Date(Date.now() - 30 * DAY_MS).toISOString(),
    to: new Date().toISOString(),
    measure: 'count_events',
    bucket: 'hour',
    group_by: 'field',
    group_field: { template_id: tpl, key: 'plate' },
    top_limit: 100,
  });

  await feed(b.admin, (i) => i >= 20); // warm-up
  const baseline = await feed(b.admin, (i) => i >= BASELINE);

  const until = Date.now() + DURATION_S * 1000;
  const statuses = new Map<string, number>();
  const queryMs: number[] = [];
  let most = 0;
  const sampler = (async () => {
    while (Date.now() < until) {
      const [{ n }] = await db`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state = 'active' and query like '%grouping(e.b)%' and pid <> pg_backend_pid()`;
      most = Math.max(most, Number(n));
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  const workers = Array.from({ length: WORKERS }, async () => {
    while (Date.now() < until) {
      const t0 = performance.now();
      const r = await call('POST', '/api/v1/event-analytics/query', heavy(), a.operator);
      const key = r.status === 200 ? '200' : `${r.status} ${r.json?.error ?? ''}`.trim();
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (r.status === 200) queryMs.push(performance.now() - t0);
      if (r.status === 429 || r.status === 503)
        await new Promise((res) => setTimeout(res, Number(r.retryAfter ?? 1) * 1000));
    }
  });
  const loaded = await feed(b.admin, () => Date.now() >= until);
  await Promise.all([...workers, sampler]);

  console.log(
    `\n${EVENTS} events of organisation A, ${WORKERS} clients of A's operator for ${DURATION_S} s; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '| organisation B feed (GET /api/v1/events?limit=50) | requests | p50 ms | p99 ms | not 200 |\n|---|---|---|---|---|',
  );
  console.log(
    `| baseline, no load | ${baseline.ms.length} | ${pct(baseline.ms, 0.5).toFixed(0)} | ${pct(baseline.ms, 0.99).toFixed(0)} | ${baseline.failed.length} |`,
  );
  console.log(
    `| under A's analytics | ${loaded.ms.length} | ${pct(loaded.ms, 0.5).toFixed(0)} | ${pct(loaded.ms, 0.99).toFixed(0)} | ${loaded.failed.length} |`,
  );
  if (loaded.failed.length) console.log(`B's feed answered: ${[...new Set(loaded.failed)].slice(0, 5).join('; ')}`);
  console.log(
    `A's analytics answers: ${[...statuses].map(([k, v]) => `${k}: ${v}`).join(', ')}; answered query p50 ${pct(queryMs, 0.5).toFixed(0)} ms, p99 ${pct(queryMs, 0.99).toFixed(0)} ms`,
  );
  console.log(`most analytics statements at once in PostgreSQL: ${most} (pool of ${POOL_MAX})`);
  console.log(
    JSON.stringify({
      baseline_p50_ms: pct(baseline.ms, 0.5),
      baseline_p99_ms: pct(baseline.ms, 0.99),
      loaded_p50_ms: pct(loaded.ms, 0.5),
      loaded_p99_ms: pct(loaded.ms, 0.99),
      loaded_requests: loaded.ms.length,
      loaded_not_200: loaded.failed.length,
      analytics: Object.fromEntries(statuses),
      most_analytics_statements: most,
    }),
  );
} finally {
  await db.end();
  await plane.stop();
  await target.drop();
}
