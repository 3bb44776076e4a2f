import type { PlaneApp } from '../../http/typed.js';
import { underResponseSlot } from '../../http/response-slot.js';
import { principalOf } from '../../http/principal.js';
import { IdParams, sec, validationCodes } from '../../http/list.js';
import type { EventsService } from './events.service.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import {
  ClosePatchBody,
  CloseReply,
  EventCard,
  FEED_FILTER_ERRORS,
  FeedFieldCodes,
  FeedPage,
  FeedRouteQuery,
  SEARCH_ERRORS,
  StarReply,
} from './events.schemas.js';
import { strictBody } from '../../http/list.js';

const tags = ['events'];

/** Authenticated scope: any signed-in user, narrowed by camera rights. */
export function eventsReadRoutes(
  app: PlaneApp,
  deps: { events: EventsService; evidence: Pick<EvidenceService, 'takeSlot'> },
): void {
  app.get(
    '/api/v1/events',
    {
      schema: {
        tags,
        security: sec,
        querystring: FeedRouteQuery,
        response: { 200: FeedPage },
        summary: 'The event feed, newest first; next page with after_ts=<next_ts>&after_id=<next_id>',
        description:
          'Without severity parameters debug events are hidden; they appear when a bound reaches zero. ' +
          '`q` searches free words (two letters or digits each), "quoted phrases" and field:value over template fields. ' +
          'The session token may come as `token` here only (browser event sources); the Authorization header wins. ' +
          'event_search_too_broad carries candidate_limit; event_search_busy and event_search_deadline retry_after.',
        errors: [...FEED_FILTER_ERRORS, ...SEARCH_ERRORS],
      },
      config: { validationCode: validationCodes(FeedFieldCodes) },
    },
    async (req, reply) => {
      const { token: _credential, ...filters } = req.query;
      // The page is JSON text already (rows spliced as PostgreSQL wrote them): a string is sent as
      // is, never serialised again, so it does not take the schema's object type.
      const page = await deps.events.feedJson(principalOf(req), filters);
      return reply.type('application/json; charset=utf-8').send(page as never);
    },
  );

  app.get(
    '/api/v1/events/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: EventCard },
        summary: 'One event card (404 for an unknown id, an id of another shape, or an event outside your rights)',
        description:
          'event_response_busy: the 4 response slots shared with attachments and previews are taken; ' +
          'response_encode_failed: the card could not be encoded.',
        errors: ['notFound', 'archivedDataExpired', 'eventResponseBusy', 'responseEncodeFailed'],
      },
    },
    async (req, reply) => {
      const card = await underResponseSlot(reply, deps.evidence, () =>
        deps.events.card(principalOf(req), req.params.id),
      );
      return reply.header('cache-control', 'private, no-store').send(card);
    },
  );

  for (const [method, starred] of [
    ['POST', true],
    ['DELETE', false],
  ] as const) {
    app.route({
      method,
      url: '/api/v1/events/:id/star',
      schema: {
        tags,
        security: sec,
        params: IdParams,
        response: { 200: StarReply },
        summary: starred ? 'Star an event (seen by everyone who sees it)' : 'Remove the star of an event',
        errors: ['notFound'],
      },
      handler: async (req) => deps.events.star(principalOf(req), req.params.id, starred),
    });
  }
}

/** A scope open to sessions and module tokens (requireSessionOrModuleToken). */
export function eventsCloseRoute(app: PlaneApp, deps: { events: EventsService }): void {
  app.patch(
    '/api/v1/events/:id',
    {
      schema: {
        tags,
        security: sec,
        params: IdParams,
        body: ClosePatchBody,
        response: { 200: CloseReply },
        summary: "Close an open interval event: its organisation's administrator, or the module token that created it",
        errors: [
          'not_interval',
          'bad_ended_at',
          'ended_at is before occurred_at',
          'ended_at is in the future',
          'forbidden',
          'notFound',
          'alreadyClosed',
        ],
      },
      preValidation: strictBody(ClosePatchBody, { ended_at: 'bad_ended_at' }),
      config: { validationCode: validationCodes({ ended_at: 'bad_ended_at' }) },
    },
    async (req) =>
      deps.events.close({ principal: req.principal, token: req.moduleToken }, req.params.id, req.body.ended_at),
  );
}
