import { Type } from 'typebox';
// The one timestamp rule of every route (issue 25, finding 7).
import { Timestamp as Ts } from '../../../common/time.js';
import { Uuid } from '../../http/list.js';
import type { ErrorName } from '../../errors.js';

const NullableT = <T extends import('typebox').TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const EventJson = Type.Object({
  id: Uuid,
  occurred_at: Ts,
  ended_at: NullableT(Ts),
  org_id: Uuid,
  camera_id: NullableT(Uuid),
  camera_name: NullableT(Type.String()),
  node_id: NullableT(Uuid),
  node_name: NullableT(Type.String()),
  detector: Type.String(),
  detector_title: Type.Unknown({ description: 'a string or an object of localisations, or null' }),
  category: Type.String(),
  severity: NullableT(Type.String()),
  confidence: NullableT(Type.Number()),
  interval: Type.Boolean(),
  template_id: NullableT(Uuid),
  subject_type: NullableT(Type.String()),
  subject_ref: NullableT(Type.String()),
  list_values: Type.Array(Type.Unknown()),
  payload: Type.Record(Type.String(), Type.Unknown()),
  attachments: Type.Array(Type.Unknown()),
  starred: Type.Boolean(),
  ext_id: NullableT(Type.String()),
});

export const FeedQuery = Type.Object(
  {
    org: Type.Optional(Uuid),
    from: Type.Optional(Ts),
    to: Type.Optional(Ts),
    camera: Type.Optional(Type.String()),
    tag: Type.Optional(Type.String()),
    detector: Type.Optional(Type.String({ maxLength: 257, description: 'exact id or a prefix with a trailing *' })),
    severity: Type.Optional(
      Type.String({
        description: 'debug, info, warning, error, critical or 0..4 (not below); none = without severity',
      }),
    ),
    severity_max: Type.Optional(Type.String()),
    starred: Type.Optional(Type.Boolean()),
    open: Type.Optional(Type.Boolean()),
    category: Type.Optional(Type.String()),
    after_ts: Type.Optional(Ts),
    after_id: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ description: 'default 100, clamped to 1..500' })),
    q: Type.Optional(
      Type.String({
        maxLength: 1024,
        description:
          'search: free words (two letters or digits each), "quoted phrases", field:value over template fields',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The feed route's query: the filters plus `token`, the one place a session token may come as a parameter. */
export const FeedRouteQuery = Type.Object(
  {
    ...FeedQuery.properties,
    token: Type.Optional(
      Type.String({
        description:
          'the session token, for browser event sources that cannot set headers (the Authorization header wins); only on this route',
      }),
    ),
  },
  { additionalProperties: false },
);

export const FeedPage = Type.Object({
  rows: Type.Array(EventJson),
  next_ts: NullableT(Ts),
  next_id: NullableT(Uuid),
  stream_cursor: Type.String({
    description: 'g:<n> or d<purge-day>:<n>, taken before the query; give it to the event stream',
  }),
});

export const EventCard = Type.Object({
  event: EventJson,
  template: Type.Unknown({ description: 'the assigned template document parts, or null' }),
  rendered: Type.Object({ title: Type.Unknown(), details: Type.Array(Type.Unknown()) }),
});

export const FeedFieldCodes: Record<string, string> = {
  from: 'bad_event_range',
  to: 'bad_event_range',
  after_ts: 'bad_event_cursor',
  after_id: 'bad_event_cursor',
  org: 'bad_org',
  limit: 'bad_limit',
  starred: 'bad_request',
  open: 'bad_request',
  q: 'bad_request',
};

export const StarReply = Type.Object({ id: Uuid, starred: Type.Boolean() });

export const ClosePatchBody = Type.Object({ ended_at: Ts }, { additionalProperties: false });
export const CloseReply = Type.Object({ id: Uuid, ended_at: Ts });

/** The feed filter's codes (events.service.ts), answered by every route that reads the feed's filters. */
export const FEED_FILTER_ERRORS = [
  'bad_event_cursor',
  'bad_event_range',
  'bad_severity',
  'bad_severity_range',
  'bad_category',
  'crossOrg',
] as const satisfies readonly ErrorName[];

/** The search's codes (search.ts), where `q` is read: too short a word, too broad, its slots and deadline. */
export const SEARCH_ERRORS = [
  'event_search_too_short',
  'eventSearchTooBroad',
  'eventSearchBusy',
  'eventSearchDeadline',
] as const satisfies readonly ErrorName[];
