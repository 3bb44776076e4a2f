/**
 * Feed reads at scale: seeds EVENTS (default 10 million) events into a fresh database, spread over
 * 64 cameras, 16 detectors and ~30 days, straight into the day partitions (created by the plane's
 * own partition function), then measures through the real plane executable over HTTP:
 * the feed's first page, a deep keyset page, a camera filter, a detector-prefix filter (target
 * p99 < 20 ms each, one request at a time), `field:value` searches over the LPR template's fields
 * (a plate matching ~8 events, a country matching ~7,500; target p99 < 200 ms) and single-event
 * card reads with CONCURRENCY connections (4 by default: a card holds one of the 4 response slots,
 * so more would be answered 429 event_response_busy; no target of its own). Prints a table with the CPU per
 * request of the plane and of its PostgreSQL backends (the steady figure on a shared machine).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/feed.js
 *   (EVENTS default 10000000, REQUESTS per latency row default 500, DURATION_MS of the card run default 10000,
 *    CONCURRENCY default 4, KEEP_DB=1 keeps the database and prints its name, REUSE_DB=<name> skips seeding)
 */
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import postgres from 'postgres';
import { BOOT, loginToken, processCpuMs, startPlaneProcess } from './harness.js';
import { benchServerUrl } from '../harness.js';
import { keepAliveClient } from './keep-alive-client.js';

const BASE = benchServerUrl();
const EVENTS = Number(process.env.EVENTS ?? 10_000_000);
const REQUESTS = Number(process.env.REQUESTS ?? 500);
const DURATION_MS = Number(process.env.DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const DAYS = 30;
const CAMERAS = 64;
const DETECTORS = [
  'lpr.plate',
  'lpr.plate_low',
  'lpr.country',
  'lpr.make',
  'motion.zone',
  'motion.global',
  'line.cross',
  'line.count',
  'face.match',
  'face.unknown',
  'intrusion.area',
  'loiter.area',
  'smoke.detect',
  'fire.detect',
  'camera.tamper',
  'audio.glass',
];
const DAY_MS = 86_400_000;

const { http, must, agent } = keepAliveClient(CONCURRENCY + 2);

const reuse = process.env.REUSE_DB;
const dbName = reuse ?? `argus_bench_${randomBytes(4).toString('hex')}`;
const admin = postgres(BASE, { max: 1, onnotice: () => {} });
if (!reuse) await admin.unsafe(`create database ${dbName}`);
const url = new URL(BASE);
url.pathname = `/${dbName}`;
const plane = await startPlaneProcess(url.toString());
const db = postgres(url.toString(), { max: 2, onnotice: () => {} });

/** The template of the LPR detectors (lpr.*): a plate string and a country enum, searched with field:value. */
const LPR_TEMPLATE = {
  detector_match: 'lpr.*',
  title: { en: 'Number plate' },
  list_fields: [{ key: 'plate', label: 'Plate', source: '/plate' }],
  fields: [
    { key: 'plate', label: 'Plate', source: '/plate', type: 'string' },
    {
      key: 'country',
      label: 'Country',
      source: '/country',
      type: 'enum',
      enum_values: ['de', 'fr', 'nl', 'be', 'pl', 'at', 'ch', 'cz', 'lu'],
    },
  ],
  detail_layout: [{ title: 'Vehicle', keys: ['plate', 'country'] }],
};
/** Distinct plates: each of the ~2.5M LPR events (4 of 16 detectors) carries one, so a plate matches ~8 events. */
const PLATES = 300_000;

/**
 * One day partition in one statement: ids are UUIDv7 of the row's millisecond (as the intake
 * makes them), stream positions a reserved block, severities mostly info with some debug;
 * rows are written in time order, as intake writes them (the heap follows time, so a page of the
 * feed reads a few heap pages, not one per row).
 * LPR events carry what the intake would have written for LPR_TEMPLATE: a plate (one of PLATES)
 * and a country (de 60%, fr 15%, nl 10%, be 7%, pl 4%, at 2%, ch 1%, cz 0.7%, lu 0.3% of LPR
 * events, so country:lu matches ~7,500 events at 10M, inside the 10,000-candidate limit) in the
 * payload, typed fields, list values, the template's title, and the words and `key:value`
 * lexemes in `search`.
 */
async function seedDay(
  day: number,
  n: number,
  seq0: number,
  org: string,
  node: string,
  cams: string[],
  template: string,
  conn: postgres.Sql,
): Promise<void> {
  const start = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - day * DAY_MS;
  const part = `events_${new Date(start).toISOString().slice(0, 10).replace(/-/g, '')}`;
  // Today only up to now (no future events); past days across the whole day.
  const span = day === 0 ? Math.max(60_000, Date.now() - start - 60_000) : DAY_MS;
  await conn.unsafe(
    `
    insert into ${part} (id, occurred_at, seq, org_id, camera_id, node_id, category, detector, detector_title, severity, confidence,
                         template_id, subject_type, subject_ref, list_values, fields, payload, search)
    select (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3) || '-' || substr(r, 7, 12))::uuid,
           to_timestamp(ms / 1000.0), $1::bigint + g, $2::uuid, ($3::uuid[])[1 + g % ${CAMERAS}], $4::uuid, 'camera', det,
           case when lpr then $6::jsonb end,
           (case when g % 10 = 0 then 0 when g % 10 < 7 then 1 when g % 10 < 9 then 2 else 3 + g % 2 end)::smallint,
           50 + g % 50, case when lpr then $7::uuid end, 'plate', 'AB' || (g % 1000),
           case when lpr then jsonb_build_array(jsonb_build_object('key', 'plate', 'value', plate)) else '[]'::jsonb end,
           case when lpr then jsonb_build_object('plate', plate, 'country', country) else '{}'::jsonb end,
           case when lpr then jsonb_build_object('lane', g % 3, 'plate', plate, 'country', country) else jsonb_build_object('lane', g % 3) end,
           array_to_tsvector(array[split_part(det, '.', 1), split_part(det, '.', 2), 'ab' || (g % 1000)])
             || case when lpr then to_tsvector('simple', 'Number plate ' || plate || ' ' || country)
                  || array_to_tsvector(array['plate:' || lower(plate), 'country:' || country]) else ''::tsvector end
    from (select g, ms, lpad(to_hex(ms), 12, '0') as h, md5(g::text || ms::text) as r, det, det like 'lpr.%' as lpr,
                 chr(65 + pn % 26) || chr(65 + pn / 26 % 26) || (1000 + pn / 676) as plate,
                 case when cn < 600 then 'de' when cn < 750 then 'fr' when cn < 850 then 'nl' when cn < 920 then 'be' when cn < 960 then 'pl'
                      when cn < 980 then 'at' when cn < 990 then 'ch' when cn < 997 then 'cz' else 'lu' end as country
          from (select g, ${start}::bigint + floor(random() * ${span})::bigint as ms, ($5::text[])[1 + (g * 7) % ${DETECTORS.length}] as det,
                       floor(random() * ${PLATES})::int as pn, floor(random() * 1000)::int as cn
                from generate_series(1, ${n}) g) s) x
    order by ms`,
    [seq0, org, cams, node, DETECTORS, JSON.stringify(LPR_TEMPLATE.title), template],
  );
}

/**
 * A percentile of a sorted sample, printed; an empty sample (the small sizes of `npm run bench`
 * on a loaded machine can leave one: every card read answered 429, no row in a sampled range)
 * prints "no samples" rather than failing the whole run.
 */
const pct = (xs: number[], q: number): string =>
  xs.length ? xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!.toFixed(1) : 'no samples';
const rows: string[] = [];
const notes: string[] = [];
try {
  const root = await loginToken(plane.base, BOOT);
  let orgId: string, node: string, session: string, template: string;
  const cams: string[] = [];
  if (reuse) {
    orgId = (await db`select id from orgs where name = 'bench-org'`)[0]!.id;
    node = (await db`select id from nodes where name = 'bench-node'`)[0]!.id;
    cams.push(...(await db`select id from cameras where org_id = ${orgId} order by name`).map((r) => r.id as string));
    session = await loginToken(plane.base, { login: 'bench-admin', password: 'bench-password-1' });
    template = (await db`select id from event_templates where org_id = ${orgId} and name = 'bench-lpr'`)[0]?.id;
  } else {
    orgId = (await must(http(plane.base, 'POST', '/api/v1/orgs', { name: 'bench-org' }, root), 'org')).id as string;
    await must(
      http(
        plane.base,
        'POST',
        '/api/v1/users',
        { login: 'bench-admin', name: 'bench', password: 'bench-password-1', role: 'admin', org_id: orgId },
        root,
      ),
      'admin',
    );
    session = await loginToken(plane.base, { login: 'bench-admin', password: 'bench-password-1' });
    node = (
      await must(
        http(
          plane.base,
          'POST',
          '/api/v1/nodes',
          { name: 'bench-node', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' },
          root,
        ),
        'node',
      )
    ).id as string;
    for (let i = 0; i < CAMERAS; i++) {
      cams.push(
        (
          await must(
            http(
              plane.base,
              'POST',
              '/api/v1/cameras',
              { name: `cam-${i}`, node_id: node, main_source: 'rtsp://10.0.0.1/a' },
              session,
            ),
            'camera',
          )
        ).id,
      );
    }
    template = (
      await must(
        http(plane.base, 'POST', '/api/v1/templates', { name: 'bench-lpr', doc: LPR_TEMPLATE }, session),
        'template',
      )
    ).id as string;
  }

  let seedSecs = 0;
  if (!reuse) {
    // The plane made the partitions at start; the same function again (idempotent) covers the seeded days.
    await db`select argus_ensure_event_partitions(now() - interval '32 days', now() + interval '3 days')`;
    const perDay = Math.ceil(EVENTS / DAYS);
    const [{ head }] = await db`select setval('event_seq', ${EVENTS + 1}) - ${EVENTS} as head`;
    const t0 = performance.now();
    const conns = [
      postgres(url.toString(), { max: 1, onnotice: () => {} }),
      postgres(url.toString(), { max: 1, onnotice: () => {} }),
    ];
    for (const c of conns) await c`set synchronous_commit = off`;
    let next = 0;
    // Two days at a time (two cores).
    await Promise.all(
      conns.map(async (c) => {
        for (let d = next++; d < DAYS; d = next++) {
          const n = Math.min(perDay, EVENTS - d * perDay);
          if (n > 0) await seedDay(d, n, Number(head) + d * perDay, orgId, node, cams, template, c);
          process.stderr.write(`day ${d} seeded (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
        }
      }),
    );
    await Promise.all(conns.map((c) => c.end()));
    // What autovacuum would have done by the time a month is stored (this development server
    // runs without it): statistics, visibility maps, GIN pending lists emptied.
    await db`vacuum (analyze) events`;
    seedSecs = (performance.now() - t0) / 1000;
  }
  const [{ n: total }] = await db`select count(*)::bigint as n from events`;

  // Deep keyset cursors: rows of 10..20 days back.
  const deep =
    await db`select occurred_at, id from events where occurred_at between now() - interval '20 days' and now() - interval '10 days'
    order by random() limit 200`;
  // A page sample is cheap at 10M events; at the small sizes of `npm run bench` it may hold no
  // row at all, so an empty sample falls back to reading the first rows.
  let ids = (await db`select id from events tablesample system (0.5) limit 5000`).map((r) => r.id as string);
  if (!ids.length) ids = (await db`select id from events limit 5000`).map((r) => r.id as string);
  // Plates of LPR events anywhere in the 30 days: each matches ~8 events.
  let plates = (
    await db`select fields->>'plate' as plate from events tablesample system (0.2) where template_id is not null limit 200`
  ).map((r) => r.plate as string);
  if (!plates.length)
    plates = (await db`select fields->>'plate' as plate from events where template_id is not null limit 200`).map(
      (r) => r.plate as string,
    );
  const enc = encodeURIComponent;

  /**
   * CPU so far of the plane and of its PostgreSQL backends: on a shared machine the CPU a
   * request costs is steadier than its wall time. A backend opened during a run counts whole.
   */
  async function cpuNow(): Promise<{ plane: number; pg: Map<number, number> }> {
    const pids = (
      await db`select pid from pg_stat_activity where datname = ${dbName} and application_name = 'argus-plane'`
    ).map((r) => Number(r.pid));
    return {
      plane: await plane.cpuMs(),
      pg: new Map(await Promise.all(pids.map(async (p) => [p, await processCpuMs(p)] as [number, number]))),
    };
  }
  function cpuSince(
    a: { plane: number; pg: Map<number, number> },
    b: { plane: number; pg: Map<number, number> },
    n: number,
  ): string {
    let pg = 0;
    for (const [pid, ms] of b.pg) pg += ms - (a.pg.get(pid) ?? 0);
    return `${((b.plane - a.plane) / n).toFixed(2)} | ${(pg / n).toFixed(2)}`;
  }

  /** `inputs`: what the paths draw from (cursors, plates); none sampled at this size gives a row of no samples. */
  async function latency(name: string, path: (i: number) => string, inputs?: unknown[]): Promise<void> {
    if (inputs && !inputs.length) {
      rows.push(`| ${name} | 1 | 0 | no samples | no samples | - | - | - |`);
      return;
    }
    for (let i = 0; i < 20; i++) await http(plane.base, 'GET', path(i), undefined, session);
    const ms: number[] = [];
    let empty = 0;
    // Refusals (a 429 or 503 on a loaded machine, at any size) are counted and printed, never
    // fatal: one refused page must not throw away the whole run's figures (issue 26).
    const refused = new Map<string, number>();
    const cpu0 = await cpuNow();
    const t0 = performance.now();
    for (let i = 0; i < REQUESTS; i++) {
      const s = performance.now();
      const r = await http(plane.base, 'GET', path(i), undefined, session);
      if (r.status >= 300) {
        const key = `${r.status} ${typeof r.json === 'object' ? (r.json?.error ?? '') : ''}`.trim();
        refused.set(key, (refused.get(key) ?? 0) + 1);
        continue;
      }
      ms.push(performance.now() - s);
      // Reported, not fatal: at small sizes a search (country:lu) may match nothing.
      if (!r.json?.rows?.length) empty++;
    }
    const secs = (performance.now() - t0) / 1000;
    const cpu = cpuSince(cpu0, await cpuNow(), Math.max(1, ms.length));
    ms.sort((a, b) => a - b);
    rows.push(
      `| ${name} | 1 | ${ms.length} | ${pct(ms, 0.5)} | ${pct(ms, 0.99)} | ${(ms.length / secs).toFixed(0)} | ${cpu} |`,
    );
    if (empty) notes.push(`${name}: ${empty} of ${REQUESTS} pages empty`);
    for (const [k, n] of refused) notes.push(`${name}: ${n} of ${REQUESTS} requests answered ${k}`);
  }
  await latency('feed, first page (100 rows)', () => '/api/v1/events');
  await latency(
    'feed, deep keyset page (10..20 days back)',
    (i) => {
      const c = deep[i % deep.length]!;
      return `/api/v1/events?after_ts=${enc(new Date(c.occurred_at).toISOString())}&after_id=${c.id}`;
    },
    deep,
  );
  await latency('feed, camera filter', (i) => `/api/v1/events?camera=${cams[i % CAMERAS]}`);
  await latency(
    'feed, detector prefix (lpr.*)',
    (i) => `/api/v1/events?detector=${['lpr.*', 'motion.*', 'face.*', 'line.*'][i % 4]}`,
  );
  await latency(
    'search, selective field:value (plate:<plate>, ~8 events)',
    (i) => `/api/v1/events?q=${enc(`plate:${plates[i % plates.length]}`)}`,
    plates,
  );
  await latency('search, broad field:value (country:lu, ~7,500 events)', () => `/api/v1/events?q=country:lu`);

  // Single-event reads, CONCURRENCY at a time.
  const ms: number[] = [];
  let done = 0,
    failed = 0,
    busy = 0;
  const until = performance.now() + DURATION_MS;
  const cpu0 = await cpuNow();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: ids.length ? CONCURRENCY : 0 }, async (_, w) => {
      let k = w;
      while (performance.now() < until) {
        const s = performance.now();
        const r = await http(plane.base, 'GET', `/api/v1/events/${ids[k++ % ids.length]}`, undefined, session);
        if (r.status === 200) {
          done++;
          ms.push(performance.now() - s);
        } else if (r.status === 429) busy++;
        else failed++;
      }
    }),
  );
  const secs = (performance.now() - t0) / 1000;
  ms.sort((a, b) => a - b);
  const cpu = cpuSince(cpu0, await cpuNow(), Math.max(1, done));
  rows.push(
    `| GET /api/v1/events/{id} | ${CONCURRENCY} | ${done} | ${pct(ms, 0.5)} | ${pct(ms, 0.99)} | ${(done / secs).toFixed(0)} | ${cpu} |`,
  );

  const load = loadavg()[0]!.toFixed(1);
  console.log(
    `\nFeed reads at ${Number(total).toLocaleString('en')} events (${CAMERAS} cameras, ${DETECTORS.length} detectors, ${DAYS} days)` +
      (seedSecs ? `, seeded in ${seedSecs.toFixed(0)} s` : '') +
      `; plane RSS ${(await plane.rssMb()).toFixed(0)} MB; load average ${load}`,
  );
  console.log(
    '| request | connections | requests | p50 ms | p99 ms | requests/s | plane CPU ms/request | PostgreSQL CPU ms/request |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of rows) console.log(r);
  if (failed) console.log(`failed card reads: ${failed}`);
  if (busy) console.log(`card reads answered 429 event_response_busy: ${busy}`);
  for (const n of notes) console.log(n);
} finally {
  await db.end();
  await plane.stop();
  agent.destroy();
  if (process.env.KEEP_DB || reuse) console.log(`database kept: ${dbName}`);
  else await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
  await admin.end();
}
