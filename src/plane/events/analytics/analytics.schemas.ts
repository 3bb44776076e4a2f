import { Type, type Static } from 'typebox';
import type { ErrorName } from '../../errors.js';

/** A template field as analytics addresses it: the pair, never a JSON path (document 2). */
export const FieldRef = Type.Object(
  {
    template_id: Type.String({ maxLength: 64 }),
    key: Type.String({ maxLength: 128 }),
  },
  { additionalProperties: false },
);

const FieldCondition = Type.Object(
  {
    field: FieldRef,
    op: Type.String({ maxLength: 16 }),
    value: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean(), Type.Null()])),
  },
  { additionalProperties: false },
);

const ids = Type.Array(Type.String({ maxLength: 64 }), { maxItems: 1024 });

export const AnalyticsFilters = Type.Object(
  {
    detectors: Type.Optional(Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 1024 })),
    camera_ids: Type.Optional(ids),
    tag_ids: Type.Optional(ids),
    node_ids: Type.Optional(ids),
    severity_min: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    severity_max: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    category: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    starred: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    open: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    fields: Type.Optional(Type.Array(FieldCondition, { maxItems: 1024 })),
  },
  { additionalProperties: false },
);

/**
 * The parts of a query that say what is computed, without the range and the organisation: a
 * saved report's definition has this shape (plus its `period`, document 4 §11).
 */
export const analyticsShape = {
  timezone: Type.Optional(Type.String({ maxLength: 128 })),
  version: Type.Optional(Type.Integer()),
  measure: Type.String({ maxLength: 64 }),
  measure_field: Type.Optional(Type.Union([FieldRef, Type.Null()])),
  group_by: Type.Optional(Type.String({ maxLength: 32 })),
  group_field: Type.Optional(Type.Union([FieldRef, Type.Null()])),
  bucket: Type.Optional(Type.String({ maxLength: 16 })),
  semantics: Type.Optional(Type.String({ maxLength: 16 })),
  filters: Type.Optional(AnalyticsFilters),
  top_limit: Type.Optional(Type.Integer()),
};

/** POST /api/v1/event-analytics/query (document 2, "Analytics"). */
export const AnalyticsQueryBody = Type.Object(
  {
    org_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
    // Plain strings: an unparseable time is analytics_bad_range, like a reversed range.
    from: Type.String({ maxLength: 64 }),
    to: Type.String({ maxLength: 64 }),
    ...analyticsShape,
  },
  { additionalProperties: false },
);
export type AnalyticsQueryBody = Static<typeof AnalyticsQueryBody>;

const FieldRefOut = Type.Union([Type.Object({ template_id: Type.String(), key: Type.String() }), Type.Null()]);

export const AnalyticsPoint = Type.Object({
  bucket: Type.Union([Type.String(), Type.Null()], {
    description: 'bucket start, RFC 3339 with the zone offset; null without buckets',
  }),
  key: Type.Union([Type.String(), Type.Null()]),
  label: Type.Union([Type.String(), Type.Null()]),
  value: Type.Number(),
  sample_count: Type.Integer(),
});

export const AnalyticsResult = Type.Object({
  query_fingerprint: Type.String(),
  as_of: Type.String(),
  from: Type.String(),
  to: Type.String(),
  timezone: Type.String(),
  measure: Type.String(),
  measure_field: FieldRefOut,
  group_by: Type.String(),
  group_field: FieldRefOut,
  bucket: Type.String(),
  points: Type.Array(AnalyticsPoint),
  truncated: Type.Boolean(),
  warnings: Type.Array(Type.String()),
});
export type AnalyticsResult = Static<typeof AnalyticsResult>;

export const QueryBatchBody = Type.Object(
  {
    queries: Type.Array(Type.Object({ key: Type.String(), query: Type.Unknown() }, { additionalProperties: false }), {
      maxItems: 1024,
    }),
  },
  { additionalProperties: false },
);

export const QueryBatchReply = Type.Object({
  results: Type.Array(
    Type.Object({
      key: Type.String(),
      result: Type.Optional(AnalyticsResult),
      error: Type.Optional(Type.String()),
    }),
  ),
  as_of: Type.String(),
  stream_cursor: Type.String(),
});

export const CatalogQuery = Type.Object({ org: Type.Optional(Type.String({ format: 'uuid' })) });

export const CatalogReply = Type.Object({
  templates: Type.Array(
    Type.Object({
      id: Type.String(),
      org_id: Type.Union([Type.String(), Type.Null()]),
      name: Type.String(),
      detector_match: Type.String(),
      title: Type.Unknown(),
    }),
  ),
  fields: Type.Array(
    Type.Object({
      template_id: Type.String(),
      template_name: Type.String(),
      detector_match: Type.String(),
      key: Type.String(),
      label: Type.String(),
      type: Type.String(),
      unit: Type.Union([Type.String(), Type.Null()]),
      enum_values: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
    }),
  ),
});

/** The codes of an analytics query's checks (analytics.query.ts), wherever a query is read: ad hoc, saved or run. */
export const ANALYTICS_QUERY_ERRORS = [
  'analytics_bad_range',
  'analytics_bad_timezone',
  'analytics_version_unsupported',
  'analytics_top_limit',
  'analytics_field_required',
  'active_semantics_cannot_bucket',
  'analytics_filter_too_large',
  'analytics_bad_detector',
  'analytics_bad_severity',
  'analytics_bad_category',
  'analytics_field_bad_key',
  'analytics_field_bad_filter',
  'analytics_field_not_found',
  'analytics_field_operator_type',
  'analytics_field_filter_type',
  'analytics_custom_field_requires_org',
] as const satisfies readonly ErrorName[];

/**
 * Issue 25, finding 1 (docs/analytics.md): no analytics slot free in this process or for the
 * organisation (analytics_busy {scope, retry_after}), or the statement reached its deadline in
 * PostgreSQL (analytics_deadline {retry_after}). The spec names no code; they take the search's shape.
 */
export const ANALYTICS_LIMIT_ERRORS = ['analyticsBusy', 'analyticsDeadline'] as const satisfies readonly ErrorName[];
