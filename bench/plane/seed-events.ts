import type postgres from 'postgres';

const DAY_MS = 86_400_000;
/** The detectors of the seeded events: 16, spread evenly. */
export const DETECTORS = [
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

/** One day partition in one statement, rows in time order as intake writes them; a tenth are intervals. */
export async function seedDay(
  db: postgres.Sql,
  day: number,
  n: number,
  seq0: number,
  org: string,
  node: string,
  cams: string[],
): Promise<void> {
  const start = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - day * DAY_MS;
  const part = `events_${new Date(start).toISOString().slice(0, 10).replace(/-/g, '')}`;
  const span = day === 0 ? Math.max(60_000, Date.now() - start - 60_000) : DAY_MS;
  await db.unsafe(
    `
    insert into ${part} (id, occurred_at, seq, org_id, camera_id, node_id, category, detector, severity, confidence, "interval", ended_at)
    select (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-8' || substr(r, 4, 3) || '-' || substr(r, 7, 12))::uuid,
           to_timestamp(ms / 1000.0), $1::bigint + g, $2::uuid, ($3::uuid[])[1 + g % ${cams.length}], $4::uuid, 'camera', det,
           (case when g % 10 = 0 then 0 when g % 10 < 7 then 1 when g % 10 < 9 then 2 else 3 + g % 2 end)::smallint,
           (50 + g % 50) / 100.0, g % 10 = 3,
           case when g % 10 = 3 and g % 1000 <> 3 then least(to_timestamp(ms / 1000.0) + (g % 7200) * interval '1 second', now()) end
    from (select g, ms, lpad(to_hex(ms), 12, '0') as h, md5(g::text || ms::text) as r, det
          from (select g, ${start}::bigint + floor(random() * ${span})::bigint as ms, ($5::text[])[1 + (g * 7) % ${DETECTORS.length}] as det
                from generate_series(1, ${n}) g) s) x
    order by ms`,
    [seq0, org, cams, node, DETECTORS],
  );
}

/**
 * `total` events of one organisation over the last `days` days straight into the day partitions
 * (made first), sequence numbers reserved in one step, then `vacuum (analyze)` as autovacuum
 * leaves a table that stopped changing (statistics and the visibility map). Returns the seconds it took.
 */
export async function seedEvents(
  db: postgres.Sql,
  total: number,
  days: number,
  org: string,
  node: string,
  cams: string[],
): Promise<number> {
  const t0 = performance.now();
  await db`select argus_ensure_event_partitions(${new Date(Date.now() - (days + 1) * DAY_MS).toISOString()}::timestamptz, ${new Date(Date.now() + DAY_MS).toISOString()}::timestamptz)`;
  const perDay = Math.ceil(total / days);
  const [{ seq }] = await db`select setval('event_seq', nextval('event_seq') + ${total + 10}) as seq`;
  for (let d = 0; d < days; d++) await seedDay(db, d, perDay, Number(seq) - total - 10 + d * perDay, org, node, cams);
  await db.unsafe('vacuum (analyze) events');
  return (performance.now() - t0) / 1000;
}
