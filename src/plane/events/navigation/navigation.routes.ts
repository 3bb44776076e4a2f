import type { PlaneApp } from '../../http/typed.js';
import type { FastifyRequest } from 'fastify';
import { errors } from '../../errors.js';
import { principalOf } from '../../http/principal.js';
import { sec, strictBody, validationCodes } from '../../http/list.js';
import type { NavigationService } from './navigation.service.js';
import {
  AdjacentFieldCodes,
  AdjacentQuery,
  AdjacentReply,
  NAV_LIMITS,
  NavigateFieldCodes,
  NavigateQuery,
  NavigateReply,
  ReconcileBody,
  ReconcileFieldCodes,
  ReconcileQuery,
  ReconcileReply,
} from './navigation.schemas.js';
import { FEED_FILTER_ERRORS, SEARCH_ERRORS } from '../feed/events.schemas.js';

const tags = ['events'];

/** Authenticated scope: any signed-in user, narrowed by camera rights. */
export function eventsNavigationRoutes(app: PlaneApp, deps: { navigation: NavigationService }): void {
  app.get(
    '/api/v1/events/adjacent',
    {
      schema: {
        tags,
        security: sec,
        querystring: AdjacentQuery,
        response: { 200: AdjacentReply },
        summary: 'The previous (earlier) or next (later) event of one camera relative to a playback position',
        description:
          'No feed filters (debug events included). With anchor_id the comparison with (anchor, anchor_id) is strict; ' +
          'without it an event at the anchor time counts. A camera outside your rights answers {event: null}.',
        errors: ['bad_direction', 'bad_excluded_detectors', 'bad_anchor', 'bad_camera'],
      },
      config: { validationCode: validationCodes(AdjacentFieldCodes) },
    },
    async (req, reply) => {
      const out = await deps.navigation.adjacent(principalOf(req), req.query);
      return reply.header('cache-control', 'no-store').send(out);
    },
  );

  app.get(
    '/api/v1/events/navigate',
    {
      schema: {
        tags,
        security: sec,
        querystring: NavigateQuery,
        response: { 200: NavigateReply },
        summary: 'The key of the next (older, below) or previous (newer, above) row of the current feed result',
        description:
          'Every feed parameter, plus the current row (anchor = its occurred_at, anchor_id = its id) and direction. ' +
          'after_ts/after_id and limit do not bound the move. The search codes only with q.',
        errors: ['bad_direction', 'bad_anchor', ...FEED_FILTER_ERRORS, ...SEARCH_ERRORS],
      },
      config: { validationCode: validationCodes(NavigateFieldCodes) },
    },
    async (req) => deps.navigation.navigate(principalOf(req), req.query),
  );

  app.post(
    '/api/v1/events/reconcile',
    {
      schema: {
        tags,
        security: sec,
        querystring: ReconcileQuery,
        body: ReconcileBody,
        response: { 200: ReconcileReply },
        summary: 'Those of the candidate keys (from the live stream) that match the current feed filter, as full rows',
        description:
          'Query: the feed filters without after_ts/after_id; limit is ignored. Missing candidates and those outside your ' +
          'rights are left out alike. event_reconcile_too_many_candidates: over 512; event_reconcile_span_too_wide: over 31 days ' +
          'after dropping those outside from/to; payload_too_large: a body over 96 KiB. The search codes only with q.',
        errors: [
          'event_reconcile_too_many_candidates',
          'event_reconcile_cursor_not_allowed',
          'event_reconcile_span_too_wide',
          ...FEED_FILTER_ERRORS,
          ...SEARCH_ERRORS,
        ],
      },
      bodyLimit: NAV_LIMITS.reconcileBodyBytes,
      preValidation: [tooMany, strictBody(ReconcileBody, ReconcileFieldCodes)],
      config: { validationCode: validationCodes(ReconcileFieldCodes) },
    },
    async (req) => deps.navigation.reconcile(principalOf(req), req.query, req.body.candidates),
  );
}

/** The candidate limit has its own code, ahead of any other check of the body. */
async function tooMany(req: FastifyRequest): Promise<void> {
  const c = (req.body as { candidates?: unknown } | null)?.candidates;
  if (Array.isArray(c) && c.length > NAV_LIMITS.candidates)
    throw errors.badRequest('event_reconcile_too_many_candidates');
}
