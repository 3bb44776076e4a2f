/**
 * An independent, naive model of the analytics engine for the property test: it filters and
 * aggregates a list of events in memory, with its own calendar arithmetic (Intl only), and
 * shares no code with src/plane/events/analytics.
 */
export interface ModelEvent {
  id: string;
  occurred_at: number;
  ended_at: number | null;
  interval: boolean;
  camera_id: string | null;
  node_id: string | null;
  detector: string;
  category: 'camera' | 'system';
  severity: number | null;
  confidence: number | null;
  starred: boolean;
  template_id: string | null;
  fields: Record<string, string | number | boolean>;
}

export interface ModelQuery {
  from: string;
  to: string;
  timezone: string;
  measure: string;
  measure_field?: { template_id: string; key: string } | null;
  group_by: string;
  group_field?: { template_id: string; key: string } | null;
  bucket: string;
  semantics: string;
  top_limit: number;
  filters: {
    detectors?: string[];
    camera_ids?: string[];
    severity_min?: number | null;
    severity_max?: number | null;
    category?: string | null;
    starred?: boolean | null;
    open?: boolean | null;
    fields?: Array<{ field: { template_id: string; key: string }; op: string; value?: unknown }>;
  };
}

export interface ModelPoint {
  bucket: string | null;
  key: string | null;
  value: number;
  sample_count: number;
}

const SEVERITY = ['debug', 'info', 'warning', 'error', 'critical'];

function localParts(ms: number, tz: string) {
  const f = new Intl.DateTimeFormat('en-GB', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, Number(x.value)]));
  return { y: p.year!, mo: p.month!, d: p.day!, h: p.hour!, mi: p.minute!, s: p.second! };
}
const offsetMs = (ms: number, tz: string) => {
  const p = localParts(ms, tz);
  return Date.UTC(p.y, p.mo - 1, p.d, p.h, p.mi, p.s) - Math.floor(ms / 1000) * 1000;
};

/** The instant a local wall time names (the earlier one when it occurs twice). */
function instantOf(y: number, mo: number, d: number, h: number, tz: string): number {
  const wall = Date.UTC(y, mo - 1, d, h);
  let t = wall - offsetMs(wall, tz);
  t = wall - offsetMs(t, tz);
  // a wall time in a spring-forward gap does not exist: the next hour's start
  return t;
}

export function bucketStart(ms: number, tz: string, unit: 'hour' | 'day'): number {
  const p = localParts(ms, tz);
  if (unit === 'day') return instantOf(p.y, p.mo, p.d, 0, tz);
  // The hour's start: the instant minus the local minutes and seconds (offsets of these zones are whole quarter hours).
  return Math.floor(ms / 1000) * 1000 - (p.mi * 60 + p.s) * 1000;
}

export function rfc3339(ms: number, tz: string): string {
  const off = offsetMs(ms, tz) / 60_000;
  const local = new Date(ms + off * 60_000).toISOString().slice(0, 19);
  const a = Math.abs(off);
  return `${local}${off < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

function fieldValue(e: ModelEvent, ref: { template_id: string; key: string }): string | number | boolean | undefined {
  return e.template_id === ref.template_id ? e.fields[ref.key] : undefined;
}

export function compute(
  events: ModelEvent[],
  q: ModelQuery,
  asOf: number,
): { points: ModelPoint[]; truncated: boolean } {
  const from = Date.parse(q.from);
  const to = Date.parse(q.to);
  const f = q.filters;
  const debug = f.severity_min === 0 || f.severity_max === 0;
  const end = (e: ModelEvent) => e.ended_at ?? asOf;
  const rows = events.filter((e) => {
    if (q.semantics === 'started') {
      if (!(e.occurred_at >= from && e.occurred_at < to)) return false;
    } else if (!(e.occurred_at < to && (e.occurred_at >= from || (e.interval && end(e) > from)))) return false;
    if (
      f.detectors?.length &&
      !f.detectors.some((d) => (d.endsWith('*') ? e.detector.startsWith(d.slice(0, -1)) : e.detector === d))
    )
      return false;
    if (f.camera_ids?.length && !(e.camera_id !== null && f.camera_ids.includes(e.camera_id))) return false;
    if (!debug && e.severity === 0) return false;
    if (f.severity_min != null && !(e.severity !== null && e.severity >= f.severity_min)) return false;
    if (f.severity_max != null && !(e.severity !== null && e.severity <= f.severity_max)) return false;
    if (f.category != null && e.category !== f.category) return false;
    if (f.starred != null && e.starred !== f.starred) return false;
    const open = e.interval && e.ended_at === null;
    if (f.open === true && !open) return false;
    if (f.open === false && open) return false;
    for (const c of f.fields ?? []) {
      const v = fieldValue(e, c.field);
      const ok =
        c.op === 'exists'
          ? v !== undefined
          : c.op === 'not_exists'
            ? e.template_id === c.field.template_id && v === undefined
            : v === undefined
              ? false
              : c.op === 'eq'
                ? v === c.value
                : c.op === 'neq'
                  ? v !== c.value
                  : typeof v !== 'number'
                    ? false
                    : c.op === 'gt'
                      ? v > (c.value as number)
                      : c.op === 'gte'
                        ? v >= (c.value as number)
                        : c.op === 'lt'
                          ? v < (c.value as number)
                          : v <= (c.value as number);
      if (!ok) return false;
    }
    if (q.measure === 'avg_confidence' && e.confidence === null) return false;
    if ((q.measure === 'total_duration_seconds' || q.measure === 'avg_duration_seconds') && !e.interval) return false;
    if (q.measure === 'open_events' && !(e.interval && e.ended_at === null)) return false;
    if (q.measure_field) {
      const v = fieldValue(e, q.measure_field);
      if (v === undefined || (q.measure !== 'field_count' && typeof v !== 'number')) return false;
    }
    if (q.group_by === 'field' && fieldValue(e, q.group_field!) === undefined) return false;
    return true;
  });

  const key = (e: ModelEvent): string | null => {
    switch (q.group_by) {
      case 'detector':
        return e.detector;
      case 'camera':
        return e.camera_id;
      case 'node':
        return e.node_id;
      case 'severity':
        return e.severity === null ? null : SEVERITY[e.severity]!;
      case 'category':
        return e.category;
      case 'field':
        return String(fieldValue(e, q.group_field!));
      default:
        return null;
    }
  };
  const duration = (e: ModelEvent) =>
    Math.max(
      0,
      (q.semantics === 'active' ? Math.min(end(e), to) - Math.max(e.occurred_at, from) : end(e) - e.occurred_at) / 1000,
    );
  const agg = (list: ModelEvent[]): number => {
    const nums = () => list.map((e) => fieldValue(e, q.measure_field!) as number);
    switch (q.measure) {
      case 'count_events':
      case 'field_count':
        return list.length;
      case 'unique_cameras':
        return new Set(list.map((e) => e.camera_id).filter((c) => c !== null)).size;
      case 'open_events':
        return list.length;
      case 'avg_confidence':
        return list.reduce((a, e) => a + e.confidence!, 0) / list.length;
      case 'total_duration_seconds':
        return list.reduce((a, e) => a + duration(e), 0);
      case 'avg_duration_seconds':
        return list.reduce((a, e) => a + duration(e), 0) / list.length;
      case 'field_sum':
        return nums().reduce((a, b) => a + b, 0);
      case 'field_avg':
        return nums().reduce((a, b) => a + b, 0) / list.length;
      case 'field_min':
        return Math.min(...nums());
      case 'field_max':
        return Math.max(...nums());
      default:
        throw new Error(q.measure);
    }
  };
  const groups = new Map<string | null, ModelEvent[]>();
  for (const e of rows) {
    const k = key(e);
    groups.set(k, [...(groups.get(k) ?? []), e]);
  }
  const cmpKey = (a: string | null, b: string | null) =>
    a === b ? 0 : a === null ? 1 : b === null ? -1 : Buffer.compare(Buffer.from(a), Buffer.from(b));
  const ranked = [...groups]
    .map(([k, list]) => ({ k, v: agg(list), list }))
    .sort((a, b) => b.v - a.v || cmpKey(a.k, b.k));
  const top = ranked.slice(0, q.top_limit);
  const truncated = ranked.length > q.top_limit;
  if (q.bucket === 'none')
    return { points: top.map((g) => ({ bucket: null, key: g.k, value: g.v, sample_count: g.list.length })), truncated };
  const points: Array<ModelPoint & { at: number; rank: number }> = [];
  top.forEach((g, rank) => {
    const cells = new Map<number, ModelEvent[]>();
    for (const e of g.list) {
      const b = bucketStart(e.occurred_at, q.timezone, q.bucket as 'hour' | 'day');
      cells.set(b, [...(cells.get(b) ?? []), e]);
    }
    for (const [b, list] of cells)
      points.push({
        at: b,
        rank,
        bucket: rfc3339(b, q.timezone),
        key: g.k,
        value: agg(list),
        sample_count: list.length,
      });
  });
  points.sort((a, b) => a.at - b.at || a.rank - b.rank);
  return { points: points.map(({ at: _a, rank: _r, ...p }) => p), truncated };
}
