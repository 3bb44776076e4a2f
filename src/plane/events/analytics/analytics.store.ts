import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Schema } from '../../db/schema.js';
import { underLimits, type StatementLimits } from '../../db/statement.js';
import { cameraVisible, type CameraScope } from '../../rights/camera-rights.js';
import { isUuid } from '../../http/list.js';
import { includesDebug, type FieldRef, type NormalQuery } from './analytics.query.js';
import { offsetMinutes } from '../../../common/calendar.js';

/** One aggregated cell: a group's value in a bucket (bucket null: the whole range). */
export interface Cell {
  b: Date | null;
  k: string | null;
  v: number;
  n: number;
}

type Frag = RawBuilder<unknown>;
const and = (parts: Frag[]): Frag => (parts.length ? sql.join(parts, sql` and `) : sql`true`);
const NOTHING = '00000000-0000-0000-0000-000000000000';
const uuids = (ids: string[]) => {
  const ok = ids.filter(isUuid);
  return ok.length ? ok : [NOTHING];
};
/** A field's value as jsonb, for the events of its template only. */
const fieldOf = (f: FieldRef) => sql`(case when e.template_id = ${f.template_id}::uuid then e.fields -> ${f.key} end)`;

/** Filters on the columns the hourly rollups keep too (detector, severity, category): the same SQL for both. */
function dimensionFilters(q: NormalQuery): Frag[] {
  const f = q.filters;
  const parts: Frag[] = [];
  if (f.detectors.length) {
    const exact = f.detectors.filter((d) => !d.endsWith('*'));
    const prefixes = f.detectors
      .filter((d) => d.endsWith('*'))
      .map((d) => d.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`) + '%');
    parts.push(sql`(e.detector = any(${exact}::text[]) or e.detector like any(${prefixes}::text[]))`);
  }
  if (!includesDebug(q)) parts.push(sql`(e.severity is null or e.severity >= 1)`);
  if (f.severityMin !== null) parts.push(sql`e.severity >= ${f.severityMin}`);
  if (f.severityMax !== null) parts.push(sql`e.severity <= ${f.severityMax}`);
  if (f.category !== null) parts.push(sql`e.category = ${f.category}`);
  return parts;
}

/**
 * The rows a query reads: organisation, camera rights, time, filters, and the measure's own rows.
 * Time: events that start within `spans` (the range, or its parts outside the rolled-up hours);
 * `before` (semantics `active`): the intervals that started before the range and end (an open one
 * at as_of) after its start. Two plain conditions rather than one OR, so that each part uses the
 * indexes (the interval index answers the second without reading the table).
 */
function where(
  q: NormalQuery,
  scope: CameraScope,
  asOf: Date,
  spans: Array<[Date, Date]> | 'before' = [[q.from, q.to]],
): Frag {
  const f = q.filters;
  const parts: Frag[] = [sql`e.org_id = ${q.orgId}::uuid`, cameraVisible(scope, 'e.camera_id', 'e.org_id') as Frag];
  if (spans === 'before')
    parts.push(sql`e.occurred_at < ${q.from} and e."interval" and coalesce(e.ended_at, ${asOf}) > ${q.from}`);
  else
    parts.push(
      spans.length
        ? sql`(${sql.join(
            spans.map(([a, b]) => sql`(e.occurred_at >= ${a} and e.occurred_at < ${b})`),
            sql` or `,
          )})`
        : sql`false`,
    );
  parts.push(...dimensionFilters(q));
  if (f.cameraIds.length) parts.push(sql`e.camera_id = any(${uuids(f.cameraIds)}::uuid[])`);
  if (f.tagIds.length)
    parts.push(
      sql`e.camera_id in (select ct.camera_id from camera_tags ct where ct.tag_id = any(${uuids(f.tagIds)}::uuid[]))`,
    );
  if (f.nodeIds.length) parts.push(sql`e.node_id = any(${uuids(f.nodeIds)}::uuid[])`);
  if (f.starred !== null) parts.push(sql`e.starred = ${f.starred}`);
  if (f.open === true) parts.push(sql`e."interval" and e.ended_at is null`);
  if (f.open === false) parts.push(sql`not (e."interval" and e.ended_at is null)`);
  for (const c of f.fields) {
    const v = fieldOf(c.field);
    const json = JSON.stringify(c.value);
    switch (c.op) {
      case 'exists':
        parts.push(sql`${v} is not null`);
        break;
      case 'not_exists':
        parts.push(sql`e.template_id = ${c.field.template_id}::uuid and ${v} is null`);
        break;
      case 'eq':
        parts.push(sql`${v} = ${json}::jsonb`);
        break;
      case 'neq':
        parts.push(sql`${v} <> ${json}::jsonb`);
        break;
      // Comparisons are numeric (the service admits them on number fields only).
      case 'gt':
        parts.push(sql`jsonb_typeof(${v}) = 'number' and ${v} > ${json}::jsonb`);
        break;
      case 'gte':
        parts.push(sql`jsonb_typeof(${v}) = 'number' and ${v} >= ${json}::jsonb`);
        break;
      case 'lt':
        parts.push(sql`jsonb_typeof(${v}) = 'number' and ${v} < ${json}::jsonb`);
        break;
      case 'lte':
        parts.push(sql`jsonb_typeof(${v}) = 'number' and ${v} <= ${json}::jsonb`);
        break;
    }
  }
  // Rows the measure is about: a measure over confidence, durations or a field counts only the rows that have one.
  if (q.measure === 'avg_confidence') parts.push(sql`e.confidence is not null`);
  if (q.measure === 'total_duration_seconds' || q.measure === 'avg_duration_seconds') parts.push(sql`e."interval"`);
  if (q.measure === 'open_events') parts.push(sql`e."interval" and e.ended_at is null`);
  if (q.measureField) {
    const v = fieldOf(q.measureField);
    parts.push(q.measure === 'field_count' ? sql`${v} is not null` : sql`jsonb_typeof(${v}) = 'number'`);
  }
  if (q.groupField) parts.push(sql`${fieldOf(q.groupField)} is not null`);
  return and(parts);
}

/** Seconds of an interval: until as_of while open; under `active` only the part inside the range. */
function duration(q: NormalQuery, asOf: Date): Frag {
  const end = sql`coalesce(e.ended_at, ${asOf})`;
  return q.semantics === 'active'
    ? sql`greatest(0, extract(epoch from (least(${end}, ${q.to}) - greatest(e.occurred_at, ${q.from}))))`
    : sql`greatest(0, extract(epoch from (${end} - e.occurred_at)))`;
}

function value(q: NormalQuery, asOf: Date): Frag {
  const num = q.measureField ? sql`(${fieldOf(q.measureField)})::text::float8` : sql`null`;
  switch (q.measure) {
    case 'count_events':
      return sql`sum(e.n)`;
    case 'unique_cameras':
      return sql`count(distinct e.camera_id)`;
    case 'open_events':
      return sql`count(*)`;
    case 'avg_confidence':
      return sql`sum(e.conf_sum) / nullif(sum(e.conf_n), 0)`;
    case 'total_duration_seconds':
      return sql`sum(${duration(q, asOf)})`;
    case 'avg_duration_seconds':
      return sql`avg(${duration(q, asOf)})`;
    case 'field_count':
      return sql`count(*)`;
    case 'field_sum':
      return sql`sum(${num})`;
    case 'field_avg':
      return sql`avg(${num})`;
    case 'field_min':
      return sql`min(${num})`;
    case 'field_max':
      return sql`max(${num})`;
  }
}

function groupKey(q: NormalQuery): Frag {
  switch (q.groupBy) {
    case 'none':
      return sql`null::text`;
    case 'detector':
      return sql`e.detector`;
    case 'camera':
      return sql`e.camera_id::text`;
    case 'node':
      return sql`e.node_id::text`;
    // by name, so that ties are broken by the key the reply shows
    case 'severity':
      return sql`(array['debug', 'info', 'warning', 'error', 'critical'])[e.severity + 1]`;
    case 'category':
      return sql`e.category`;
    case 'field':
      return sql`(${fieldOf(q.groupField!)}) #>> '{}'`;
  }
}

/** Columns of a source row: an event (n = 1), or a rolled-up hour (n events) with nulls where it keeps nothing. */
const RAW = sql`e.occurred_at, e.ended_at, e."interval", e.camera_id, e.node_id, e.detector, e.category, e.severity, e.confidence,
  e.template_id, e.fields, 1::bigint as n, coalesce(e.confidence, 0)::float8 as conf_sum, (case when e.confidence is null then 0 else 1 end)::bigint as conf_n`;
const ROLLED = sql`e.hour as occurred_at, null::timestamptz as ended_at, false as "interval", null::uuid as camera_id, null::uuid as node_id,
  e.detector, e.category, e.severity, null::float8 as confidence, null::uuid as template_id, null::jsonb as fields, e.n, e.conf_sum, e.conf_n`;

/**
 * The rows of a query: every event of the range, or (when `rollupPlan` allows) the complete hours
 * from the hourly rollups and the events of the minutes around them.
 */
function source(q: NormalQuery, scope: CameraScope, asOf: Date): Frag {
  const plan = rollupPlan(q, scope);
  if (q.semantics === 'active') {
    return sql`select ${RAW} from events e where ${where(q, scope, asOf)}
      union all select ${RAW} from events e where ${where(q, scope, asOf, 'before')}`;
  }
  if (!plan) return sql`select ${RAW} from events e where ${where(q, scope, asOf)}`;
  const [a, b] = plan.hours;
  return sql`select ${RAW} from events e where ${where(q, scope, asOf, plan.edges)}
    union all
    select ${ROLLED} from event_rollups e where e.org_id = ${q.orgId}::uuid and e.n <> 0 and e.hour >= ${a} and e.hour < ${b} and ${and(dimensionFilters(q))}`;
}

const HOUR = 3_600_000;

/**
 * Whether the hourly rollups can answer the query's complete hours: counts and confidence by
 * nothing, detector, severity or category, events by start, the whole organisation (the rollups
 * keep no camera, so an operator's rights need the rows), no filter on what they do not keep, and
 * calendar buckets only in a zone whose offset is whole hours at both ends of the range.
 */
export function rollupPlan(
  q: NormalQuery,
  scope: CameraScope,
): { hours: [Date, Date]; edges: Array<[Date, Date]> } | null {
  const f = q.filters;
  if (q.semantics !== 'started' || (q.measure !== 'count_events' && q.measure !== 'avg_confidence')) return null;
  if (q.groupBy !== 'none' && q.groupBy !== 'detector' && q.groupBy !== 'severity' && q.groupBy !== 'category')
    return null;
  if (
    scope.kind === 'granted' ||
    f.cameraIds.length ||
    f.tagIds.length ||
    f.nodeIds.length ||
    f.starred !== null ||
    f.open !== null ||
    f.fields.length
  )
    return null;
  if (
    q.bucket !== 'none' &&
    (offsetMinutes(q.from, q.timezone) % 60 !== 0 || offsetMinutes(q.to, q.timezone) % 60 !== 0)
  )
    return null;
  const a = Math.ceil(q.from.getTime() / HOUR) * HOUR;
  const b = Math.floor(q.to.getTime() / HOUR) * HOUR;
  if (a >= b) return null;
  const edges: Array<[Date, Date]> = [];
  if (q.from.getTime() < a) edges.push([q.from, new Date(a)]);
  if (b < q.to.getTime()) edges.push([new Date(b), q.to]);
  return { hours: [new Date(a), new Date(b)], edges };
}

const num = (x: unknown) => (x === null || x === undefined ? null : Number(x));

export const analyticsStore = {
  /**
   * The query in one statement. Without buckets: one row per group, the best `top + 1` (value
   * descending, then key in byte order). With buckets: grouping sets give each group's total over
   * the range (ranked the same way) and its value per bucket in one scan; the cells of the top
   * groups come back with the number of groups there were.
   */
  async cells(
    db: Db,
    q: NormalQuery,
    scope: CameraScope,
    asOf: Date,
    limits: StatementLimits,
  ): Promise<{ cells: Cell[]; groups: number }> {
    // In a transaction of its own: the statement's deadline is local to it (db/statement.ts).
    return db.transaction().execute((trx) => underLimits(trx, limits, () => cellsIn(trx, q, scope, asOf)));
  },

  /** Names of cameras or nodes by id, for the points' labels. */
  async names(db: Db, table: 'cameras' | 'nodes', ids: string[]): Promise<Map<string, string>> {
    const ok = ids.filter(isUuid);
    if (!ok.length) return new Map();
    const r = await sql<{
      id: string;
      name: string;
    }>`select id::text as id, name from ${sql.table(table)} where id = any(${ok}::uuid[])`.execute(db);
    return new Map(r.rows.map((x) => [x.id, x.name]));
  },
};

/** `analyticsStore.cells`'s statement, in the transaction that carries its limits. */
async function cellsIn(
  db: Transaction<Schema>,
  q: NormalQuery,
  scope: CameraScope,
  asOf: Date,
): Promise<{ cells: Cell[]; groups: number }> {
  const k = groupKey(q);
  const v = value(q, asOf);
  const rows = source(q, scope, asOf);
  const n = q.measure === 'avg_confidence' ? sql`sum(e.conf_n)` : sql`sum(e.n)`;
  const order = sql`v desc nulls last, k collate "C" asc nulls last`;
  if (q.bucket === 'none') {
    const r = await sql<{ k: string | null; v: unknown; n: unknown }>`select k, v, n from (
        select ${k} as k, ${v} as v, ${n} as n from (${rows}) e group by 1) g
      where n > 0 order by ${order} limit ${q.topLimit + 1}`.execute(db);
    const cells = r.rows
      .filter((row) => num(row.v) !== null)
      .map((row) => ({ b: null, k: row.k, v: num(row.v)!, n: Number(row.n) }));
    return { cells: cells.slice(0, q.topLimit), groups: cells.length };
  }
  const unit = q.bucket === 'hour' ? 'hour' : 'day';
  // The rows with their group and bucket first (the subquery keeps the name e, so the measure reads e's columns).
  // Each cell gets its group's total (gv) and rank by window functions over the grouping sets, not
  // by joining the ranked groups back on the key: a join by `is not distinct from` (the key may be
  // null) can only be a nested loop, and 10,000 cells x 250 groups took 850 ms of a 950 ms query
  // (issue 25, finding 1: ten of those held the pool).
  const r = await sql<{ b: Date; k: string | null; v: unknown; n: unknown; groups: unknown }>`with agg as (
      select e.k, e.b, grouping(e.b) as total, ${v} as v, ${n} as n
      from (select e.*, ${k} as k, date_trunc(${unit}, e.occurred_at, ${q.timezone}) as b from (${rows}) e) e
      group by grouping sets ((e.k, e.b), (e.k))),
    grouped as (select a.*, max(a.v) filter (where a.total = 1 and a.v is not null and a.n > 0) over (partition by a.k) as gv from agg a),
    ranked as (select g.*, dense_rank() over (order by g.gv desc, g.k collate "C" asc nulls last) as r from grouped g where g.gv is not null)
    select b, k, v, n, (select max(r) from ranked) as groups from ranked
    where total = 0 and r <= ${q.topLimit} and v is not null and n > 0
    order by b, r`.execute(db);
  return {
    cells: r.rows.map((row) => ({ b: new Date(row.b), k: row.k, v: num(row.v)!, n: Number(row.n) })),
    groups: r.rows.length ? Number(r.rows[0]!.groups) : 0,
  };
}
