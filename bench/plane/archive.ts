/**
 * Archive cleanup of a deleted organisation: seeds EVENTS events (default 200,000, spread over
 * 10 days, SQL) and uploads ATTACHMENTS attachments of 8 KiB (default 2,000, HTTP, bound to the
 * first events) into one organisation, deletes the organisation through the real plane process
 * and polls its cleanup job until it finishes, while a second organisation keeps sending events
 * (INTAKE_RATE events/s, default 200, batches of 20) to show what the cleanup costs the others.
 * Prints rows/s, the CPU time the plane and its PostgreSQL backends spent per 1,000 removed events
 * (the steady figure on a shared machine) and the intake latency during the run; then, as the
 * baseline of the same run, COPY of as many rows into the same table and the ratio of the
 * cleanup's rows/s to COPY's (issue 26: at least 0.25).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/archive.js
 */
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { benchDatabase, startPlaneProcess, loginToken, processCpuMs, BOOT } from './harness.js';

const EVENTS = Number(process.env.EVENTS ?? 200_000);
const ATTACHMENTS = Number(process.env.ATTACHMENTS ?? 2_000);
const INTAKE_RATE = Number(process.env.INTAKE_RATE ?? 200);
const DAY_MS = 86_400_000;

async function http(
  base: string,
  method: string,
  path: string,
  body: unknown,
  token: string,
  raw?: { bytes: Buffer; type: string },
) {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(raw ? { 'content-type': raw.type } : body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: raw ? raw.bytes : body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * The baseline of the same run: COPY of `n` events (the seeded rows' shape, over the same 10
 * days, so into the same day partitions with the same indexes) for organisation `orgId`; its
 * rows/s. The rows are made before the clock starts; only the COPY is timed.
 */
async function copyBaseline(sql: postgres.Sql, orgId: string, n: number): Promise<{ rowsPerS: number }> {
  const [{ seq0 }] = await sql`select setval('event_seq', nextval('event_seq') + ${n}) - ${n} as seq0`;
  const now = Date.now();
  const lines: string[] = [];
  for (let g = 1; g <= n; g++) {
    const ms = now - 10 * DAY_MS + Math.floor(Math.random() * (10 * DAY_MS - 120_000));
    const h = ms.toString(16).padStart(12, '0');
    const r = randomBytes(10).toString('hex');
    const id = `${h.slice(0, 8)}-${h.slice(8, 12)}-7${r.slice(0, 3)}-8${r.slice(3, 6)}-${r.slice(6, 18)}`;
    const at = new Date(ms).toISOString();
    lines.push(
      `${id},${at},${Number(seq0) + g},${orgId},camera,bench.copy,${g % 5},${g % 50 === 0},"{""n"": ${g}}",'bench' 'seed'\n`,
    );
  }
  const t0 = performance.now();
  const stream =
    await sql`copy events (id, occurred_at, seq, org_id, category, detector, severity, starred, payload, search)
    from stdin with (format csv)`.writable();
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', () => resolve());
    stream.on('error', reject);
  });
  for (let i = 0; i < lines.length; i += 1000) {
    if (!stream.write(lines.slice(i, i + 1000).join(''))) await new Promise((r) => stream.once('drain', r));
  }
  stream.end();
  await done;
  return { rowsPerS: n / ((performance.now() - t0) / 1000) };
}

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url);
const sql = postgres(db.url, { max: 2, onnotice: () => {} });
const pct = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))] ?? 0;
try {
  const root = await loginToken(plane.base, BOOT);
  const org = (await http(plane.base, 'POST', '/api/v1/orgs', { name: 'archived' }, root)).id as string;
  const other = (await http(plane.base, 'POST', '/api/v1/orgs', { name: 'busy' }, root)).id as string;
  const mod = (
    await http(plane.base, 'POST', '/api/v1/module-tokens', { name: 'm', org_id: org, rate_limit: 1_000_000 }, root)
  ).secret as string;
  const busy = (
    await http(plane.base, 'POST', '/api/v1/module-tokens', { name: 'b', org_id: other, rate_limit: 1_000_000 }, root)
  ).secret as string;

  const t0 = performance.now();
  const refs: string[] = [];
  const bytes = Buffer.alloc(8192, 5);
  for (let i = 0; i < ATTACHMENTS; i++)
    refs.push(
      (await http(plane.base, 'POST', '/api/v1/attachments', undefined, mod, { bytes, type: 'image/jpeg' })).ref,
    );
  // bind them to events through the intake (10 per event), so the cleanup meets bound attachments too
  for (let i = 0; i < refs.length; i += 10 * 100) {
    const events = [];
    for (let j = i; j < Math.min(refs.length, i + 1000); j += 10)
      events.push({
        detector: 'bench.att',
        occurred_at: new Date(Date.now() - 60_000).toISOString(),
        attachments: refs.slice(j, j + 10),
      });
    const r = await http(plane.base, 'POST', '/api/v1/events', { events }, mod);
    for (const x of r.results) if (!x.id) throw new Error(`intake: ${JSON.stringify(x)}`);
  }
  const CHUNK = 50_000;
  const [{ seq0 }] = await sql`select setval('event_seq', nextval('event_seq') + ${EVENTS}) - ${EVENTS} as seq0`;
  for (let from = 0; from < EVENTS; from += CHUNK) {
    const n = Math.min(CHUNK, EVENTS - from);
    await sql.unsafe(
      `
      insert into events (id, occurred_at, seq, org_id, category, detector, severity, starred, payload, search)
      select (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3) || '-' || substr(r, 7, 12))::uuid,
             to_timestamp(ms / 1000.0), $1::bigint + g, $2::uuid, 'camera', 'bench.seed', (g % 5)::smallint, g % 50 = 0,
             jsonb_build_object('n', g), array_to_tsvector(array['bench', 'seed'])
      from (select g, ms, lpad(to_hex(ms), 12, '0') as h, md5(g::text || ms::text) as r
            from (select g, ${Date.now() - 10 * DAY_MS}::bigint + floor(random() * ${10 * DAY_MS - 120_000})::bigint as ms
                  from generate_series(${from + 1}, ${from + n}) g) s) x`,
      [Number(seq0), org],
    );
    process.stdout.write(`\rseeded ${from + n} events`);
  }
  await sql`analyze events`;
  console.log(`\nseeding took ${((performance.now() - t0) / 1000).toFixed(0)} s`);

  const backends = async () =>
    (
      await sql`select pid from pg_stat_activity where datname = current_database() and application_name = 'argus-plane'`
    ).map((r) => Number(r.pid));
  const pgCpu = async (pids: number[]) =>
    new Map(await Promise.all(pids.map(async (p) => [p, await processCpuMs(p)] as const)));
  const before = await pgCpu(await backends());
  const planeCpu0 = await plane.cpuMs();

  // the other organisation's intake, paced, during the cleanup
  const latencies: number[] = [];
  let sending = true;
  const intake = (async () => {
    const every = 1000 / (INTAKE_RATE / 20);
    while (sending) {
      const start = performance.now();
      const events = Array.from({ length: 20 }, () => ({
        detector: 'bench.busy',
        occurred_at: new Date().toISOString(),
      }));
      await http(plane.base, 'POST', '/api/v1/events', { events }, busy);
      latencies.push(performance.now() - start);
      await new Promise((r) => setTimeout(r, Math.max(0, every - (performance.now() - start))));
    }
  })();
  await new Promise((r) => setTimeout(r, 2000));
  const idleLatencies = latencies.splice(0);

  const start = performance.now();
  const del = await http(plane.base, 'DELETE', `/api/v1/orgs/${org}`, undefined, root);
  const deleteMs = performance.now() - start;
  let job: any;
  for (;;) {
    job = await http(plane.base, 'GET', `/api/v1/cleanup-jobs/${del.cleanup_job_id}`, undefined, root);
    if (job.finished_at || job.last_error) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const wallMs = performance.now() - start;
  sending = false;
  await intake;
  const planeCpu = (await plane.cpuMs()) - planeCpu0;
  const after = await pgCpu(await backends());
  let pg = 0;
  for (const [pid, ms] of after) pg += ms - (before.get(pid) ?? 0);
  const [{ left }] = await sql`select count(*)::int as left from events where org_id = ${org}`;
  const removed = job.progress.events ?? 0;
  const copy = await copyBaseline(sql, other, Math.max(1, removed));
  console.log(
    JSON.stringify(
      {
        events: removed,
        attachments: job.progress.attachments,
        left,
        last_error: job.last_error,
        delete_reply_ms: Math.round(deleteMs),
        cleanup_wall_s: +(wallMs / 1000).toFixed(1),
        events_per_s: Math.round(removed / (wallMs / 1000)),
        // The in-run baseline (issue 26: at least 25%): COPY of as many rows into the same table.
        copy_rows_per_s: Math.round(copy.rowsPerS),
        cleanup_vs_copy: +(removed / (wallMs / 1000) / copy.rowsPerS).toFixed(3),
        cpu_ms_per_1000_events: {
          plane: +(planeCpu / (removed / 1000)).toFixed(1),
          postgres: +(pg / (removed / 1000)).toFixed(1),
        },
        other_org_intake_ms: {
          idle: { p50: Math.round(pct(idleLatencies, 0.5)), p99: Math.round(pct(idleLatencies, 0.99)) },
          during_cleanup: {
            p50: Math.round(pct(latencies, 0.5)),
            p99: Math.round(pct(latencies, 0.99)),
            batches: latencies.length,
          },
        },
        load_average: (await import('node:os')).loadavg().map((x) => +x.toFixed(2)),
      },
      null,
      1,
    ),
  );
} finally {
  await sql.end();
  await plane.stop();
  await db.drop();
}
