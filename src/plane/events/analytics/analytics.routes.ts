import type { FastifyReply } from 'fastify';
import type { PlaneApp } from '../../http/typed.js';
import { principalOf } from '../../http/principal.js';
import { sec } from '../../http/list.js';
import type { AnalyticsService } from './analytics.service.js';
import {
  ANALYTICS_LIMIT_ERRORS,
  ANALYTICS_QUERY_ERRORS,
  AnalyticsQueryBody,
  AnalyticsResult,
  CatalogQuery,
  CatalogReply,
  QueryBatchBody,
  QueryBatchReply,
} from './analytics.schemas.js';

const tags = ['analytics'];
// What analytics_busy and analytics_deadline say (issue 25, finding 1; docs/analytics.md).
const LIMITS_TEXT =
  'analytics_busy {scope: global or org, retry_after}: no analytics slot free in this process or for the organisation; ' +
  'analytics_deadline {retry_after}: the statement reached its deadline in PostgreSQL';

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
        errors: ['crossOrg'],
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
        description: `${LIMITS_TEXT}.`,
        errors: [...ANALYTICS_QUERY_ERRORS, 'bad_request', 'crossOrg', ...ANALYTICS_LIMIT_ERRORS],
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
          'analytics_bad_batch: empty, more than 32, or a key not 1..128 characters; ' +
          `${LIMITS_TEXT}: the batch holds one slot, its statements share a budget of 30 s.`,
        errors: ['analytics_bad_batch', 'bad_request', 'crossOrg', ...ANALYTICS_LIMIT_ERRORS],
      },
    },
    async (req, reply) => deps.analytics.batch(principalOf(req), req.body, clientGone(reply)),
  );
}
