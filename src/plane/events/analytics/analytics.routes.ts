import type { FastifyReply } from 'fastify';
import type { PlaneApp } from '../../http/typed.js';
import { principalOf } from '../../http/principal.js';
import { sec } from '../../http/list.js';
import type { AnalyticsService } from './analytics.service.js';
import {
  AnalyticsQueryBody,
  AnalyticsResult,
  CatalogQuery,
  CatalogReply,
  QueryBatchBody,
  QueryBatchReply,
} from './analytics.schemas.js';

const tags = ['analytics'];
const QUERY_ERRORS =
  'analytics_bad_range, analytics_bad_timezone, analytics_version_unsupported, analytics_top_limit, analytics_field_required, ' +
  'active_semantics_cannot_bucket, analytics_filter_too_large, analytics_bad_detector, analytics_bad_severity, analytics_bad_category, ' +
  'analytics_field_bad_key, analytics_field_bad_filter, analytics_field_not_found, analytics_field_operator_type, analytics_field_filter_type, ' +
  'analytics_custom_field_requires_org';

// Issue 25, finding 1 (docs/analytics.md): the spec names no code for these; they take the search's shape.
const LIMIT_ERRORS =
  '429 analytics_busy {scope: global or org, retry_after} (no analytics slot free in this process or for the organisation); ' +
  '503 analytics_deadline {retry_after} (the statement reached its deadline in PostgreSQL)';

/**
 * Fires when the client goes away before its reply was sent, so that the statement working for it
 * is cancelled in PostgreSQL instead of running on for nobody.
 */
export function clientGone(reply: FastifyReply): AbortSignal {
  const ctl = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ctl.abort();
  });
  return ctl.signal;
}

/** Any signed-in user; every figure covers only the cameras the caller may see (document 2, "Analytics"). */
export function analyticsRoutes(app: PlaneApp, deps: { analytics: AnalyticsService }): void {
  app.get(
    '/api/v1/event-analytics/catalog',
    {
      schema: {
        tags,
        security: sec,
        querystring: CatalogQuery,
        response: { 200: CatalogReply },
        summary: 'Enabled templates (system first, at most 512) and their analytics fields',
        description: 'Errors: 403 cross_org.',
      },
    },
    async (req) => deps.analytics.catalog(principalOf(req), req.query),
  );

  app.post(
    '/api/v1/event-analytics/query',
    {
      schema: {
        tags,
        security: sec,
        body: AnalyticsQueryBody,
        response: { 200: AnalyticsResult },
        summary: 'One aggregate over the events in a range, by group and calendar bucket of the time zone',
        description: `Errors: 400 ${QUERY_ERRORS}; 403 cross_org; ${LIMIT_ERRORS}.`,
      },
    },
    async (req, reply) => deps.analytics.query(principalOf(req), req.body, clientGone(reply)),
  );

  app.post(
    '/api/v1/event-analytics/query-batch',
    {
      schema: {
        tags,
        security: sec,
        body: QueryBatchBody,
        response: { 200: QueryBatchReply },
        summary:
          'Up to 32 queries; a failing query answers inside its result; stream_cursor is taken before the queries run',
        description:
          'Errors: 400 analytics_bad_batch (empty, more than 32, key not 1..128 characters); 403 cross_org; 503 db_unavailable; ' +
          `${LIMIT_ERRORS}: the batch holds one slot, its statements share a budget of 30 s.`,
      },
    },
    async (req, reply) => deps.analytics.batch(principalOf(req), req.body, clientGone(reply)),
  );
}
