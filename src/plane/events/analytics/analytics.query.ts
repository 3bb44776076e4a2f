import { createHash } from 'node:crypto';
import { errors, type BadRequestCode } from '../../errors.js';
import { isUuid } from '../../http/list.js';
import { parseTimestamp } from '../../../common/time.js';
import type { AnalyticsQueryBody } from './analytics.schemas.js';

export const MEASURES = [
  'count_events',
  'unique_cameras',
  'open_events',
  'avg_confidence',
  'total_duration_seconds',
  'avg_duration_seconds',
  'field_count',
  'field_sum',
  'field_avg',
  'field_min',
  'field_max',
] as const;
export type Measure = (typeof MEASURES)[number];
export const GROUP_BYS = ['none', 'detector', 'camera', 'node', 'severity', 'category', 'field'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];
export type Bucket = 'none' | 'hour' | 'day';
export type Semantics = 'started' | 'active';
export const FIELD_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'exists', 'not_exists'] as const;
export type FieldOp = (typeof FIELD_OPS)[number];

/** Limits of document 4 §11. */
export const TOP_LIMIT = { min: 1, max: 100, default: 12 };
export const FILTER_LIST_MAX = 64;
const DETECTOR_MAX = 256;
const KEY_RE = /^[a-z][a-z0-9_]{0,63}$/;

export interface FieldRef {
  template_id: string;
  key: string;
}
export interface FieldCondition {
  field: FieldRef;
  op: FieldOp;
  value: string | number | boolean | null;
}

/** A query as the engine runs it: defaults applied, lists deduplicated and sorted, the organisation resolved. */
export interface NormalQuery {
  orgId: string;
  from: Date;
  to: Date;
  timezone: string;
  version: 1;
  measure: Measure;
  measureField: FieldRef | null;
  groupBy: GroupBy;
  groupField: FieldRef | null;
  bucket: Bucket;
  semantics: Semantics;
  filters: {
    detectors: string[];
    cameraIds: string[];
    tagIds: string[];
    nodeIds: string[];
    severityMin: number | null;
    severityMax: number | null;
    category: 'camera' | 'system' | null;
    starred: boolean | null;
    open: boolean | null;
    fields: FieldCondition[];
  };
  topLimit: number;
  warnings: string[];
}

const bad = (code: BadRequestCode): never => {
  throw errors.badRequest(code);
};

/** An IANA zone both Intl and PostgreSQL know by name (no POSIX strings, no bare offsets). */
export function isTimeZone(tz: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(tz) || tz.length > 64) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export const FIELD_MEASURES: readonly Measure[] = ['field_count', 'field_sum', 'field_avg', 'field_min', 'field_max'];

function fieldRef(v: unknown): FieldRef {
  const r = v as Partial<FieldRef> | null;
  if (
    !r ||
    typeof r.template_id !== 'string' ||
    typeof r.key !== 'string' ||
    !isUuid(r.template_id) ||
    !KEY_RE.test(r.key)
  )
    bad('analytics_field_bad_key');
  return { template_id: r!.template_id!.toLowerCase(), key: r!.key! };
}

function list(v: string[] | undefined): string[] {
  if (v === undefined) return [];
  if (v.length > FILTER_LIST_MAX) bad('analytics_filter_too_large');
  return [...new Set(v)].sort();
}

function severityBound(v: number | null | undefined): number | null {
  if (v === undefined || v === null) return null;
  if (!Number.isInteger(v) || v < 0 || v > 4) bad('analytics_bad_severity');
  return v;
}

type RawConditions = NonNullable<AnalyticsQueryBody['filters']>['fields'];

function conditions(v: RawConditions): FieldCondition[] {
  if (v === undefined) return [];
  if (v.length > FILTER_LIST_MAX) bad('analytics_filter_too_large');
  return v.map((c) => {
    const field = fieldRef(c.field);
    if (!(FIELD_OPS as readonly string[]).includes(c.op)) bad('analytics_field_bad_filter');
    const op = c.op as FieldOp;
    const needsValue = op !== 'exists' && op !== 'not_exists';
    if (needsValue && (c.value === undefined || c.value === null)) bad('analytics_field_bad_filter');
    if (!needsValue && c.value !== undefined && c.value !== null) bad('analytics_field_bad_filter');
    return { field, op, value: needsValue ? c.value! : null };
  });
}

/**
 * Checks a query body and applies the defaults of document 2; `ownOrg` is the caller's
 * organisation (the default of org_id). Field references are checked here for shape only; the
 * service checks them against the templates.
 */
export function normalise(body: AnalyticsQueryBody, ownOrg: string): NormalQuery {
  const warnings: string[] = [];
  const version = body.version ?? 1;
  if (version !== 1) bad('analytics_version_unsupported');
  // The one timestamp rule (issue 25): `new Date` took -271821 (a 500 in SQL) and rolled 02-30 over.
  const from = parseTimestamp(body.from) ?? bad('analytics_bad_range');
  const to = parseTimestamp(body.to) ?? bad('analytics_bad_range');
  if (from.getTime() >= to.getTime()) bad('analytics_bad_range');
  const timezone = body.timezone ?? 'UTC';
  if (!isTimeZone(timezone)) bad('analytics_bad_timezone');
  if (!(MEASURES as readonly string[]).includes(body.measure)) bad('bad_request');
  const measure = body.measure as Measure;
  const groupBy = (body.group_by ?? 'none') as GroupBy;
  if (!(GROUP_BYS as readonly string[]).includes(groupBy)) bad('bad_request');
  const bucket = (body.bucket ?? 'none') as Bucket;
  if (bucket !== 'none' && bucket !== 'hour' && bucket !== 'day') bad('bad_request');
  const semantics = (body.semantics ?? 'started') as Semantics;
  if (semantics !== 'started' && semantics !== 'active') bad('bad_request');
  if (semantics === 'active' && bucket !== 'none') bad('active_semantics_cannot_bucket');
  const topLimit = body.top_limit ?? TOP_LIMIT.default;
  if (!Number.isInteger(topLimit) || topLimit < TOP_LIMIT.min || topLimit > TOP_LIMIT.max) bad('analytics_top_limit');

  let measureField: FieldRef | null = null;
  if (FIELD_MEASURES.includes(measure)) {
    if (!body.measure_field) bad('analytics_field_required');
    measureField = fieldRef(body.measure_field);
  } else if (body.measure_field) warnings.push('measure_field_ignored');
  let groupField: FieldRef | null = null;
  if (groupBy === 'field') {
    if (!body.group_field) bad('analytics_field_required');
    groupField = fieldRef(body.group_field);
  } else if (body.group_field) warnings.push('group_field_ignored');

  const f = body.filters ?? {};
  const detectors = list(f.detectors);
  for (const d of detectors)
    if (d.length === 0 || d.length > DETECTOR_MAX || d.slice(0, -1).includes('*') || d === '*')
      bad('analytics_bad_detector');
  const severityMin = severityBound(f.severity_min);
  const severityMax = severityBound(f.severity_max);
  if (severityMin !== null && severityMax !== null && severityMin > severityMax) bad('analytics_bad_severity');
  const category = f.category ?? null;
  if (category !== null && category !== 'camera' && category !== 'system') bad('analytics_bad_category');
  return {
    orgId: (body.org_id ?? ownOrg).toLowerCase(),
    from,
    to,
    timezone,
    version: 1,
    measure,
    measureField,
    groupBy,
    groupField,
    bucket,
    semantics,
    filters: {
      detectors,
      cameraIds: list(f.camera_ids).map((s) => s.toLowerCase()),
      tagIds: list(f.tag_ids).map((s) => s.toLowerCase()),
      nodeIds: list(f.node_ids).map((s) => s.toLowerCase()),
      severityMin,
      severityMax,
      category: category as NormalQuery['filters']['category'],
      starred: f.starred ?? null,
      open: f.open ?? null,
      fields: conditions(f.fields),
    },
    topLimit,
    warnings,
  };
}

/** Debug events (severity 0) count only when a severity bound reaches zero (document 2). */
export const includesDebug = (q: NormalQuery) => q.filters.severityMin === 0 || q.filters.severityMax === 0;

/** A stable hash of the normalised query: the same query gives the same fingerprint. */
export function fingerprint(q: NormalQuery): string {
  const { warnings: _w, ...rest } = q;
  const canonical = JSON.stringify({ ...rest, from: q.from.toISOString(), to: q.to.toISOString() });
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 32);
}
