import { Type } from 'typebox';
// The one timestamp rule of every route (issue 25, finding 7).
import { Timestamp as Ts } from '../../../common/time.js';
import { Uuid } from '../../http/list.js';
import { EventJson, FeedFieldCodes, FeedQuery } from '../feed/events.schemas.js';

const Direction = Type.Union([Type.Literal('previous'), Type.Literal('next')]);

/** Document 2 limits of adjacent and reconcile. */
export const NAV_LIMITS = {
  excludedDetectors: 64,
  detectorBytes: 256,
  candidates: 512,
  spanMs: 31 * 86_400_000,
  reconcileBodyBytes: 96 * 1024,
} as const;

export const AdjacentQuery = Type.Object(
  {
    camera: Type.String({
      description: 'camera uuid; one outside your rights (or of another shape) answers {event: null}',
    }),
    anchor: Ts,
    anchor_id: Type.Optional(Uuid),
    direction: Direction,
    excluded_detectors: Type.Optional(
      Type.String({
        description: 'JSON array of exact detector ids, URL-encoded; up to 64 items of 1..256 bytes; not repeatable',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AdjacentFieldCodes: Record<string, string> = {
  camera: 'bad_camera',
  anchor: 'bad_anchor',
  anchor_id: 'bad_anchor',
  direction: 'bad_direction',
  excluded_detectors: 'bad_excluded_detectors',
};

export const AdjacentReply = Type.Object({ event: Type.Union([EventJson, Type.Null()]) });

/** Every feed parameter, plus the current row and the direction. */
export const NavigateQuery = Type.Object(
  {
    ...FeedQuery.properties,
    anchor: Ts,
    anchor_id: Uuid,
    direction: Direction,
  },
  { additionalProperties: false },
);

export const NavigateFieldCodes: Record<string, string> = {
  ...FeedFieldCodes,
  anchor: 'bad_anchor',
  anchor_id: 'bad_anchor',
  direction: 'bad_direction',
};

export const NavigateReply = Type.Object({
  event: Type.Union([Type.Object({ id: Uuid, occurred_at: Ts }), Type.Null()]),
});

/** The feed filters; after_ts/after_id are refused by the service (event_reconcile_cursor_not_allowed). */
export const ReconcileQuery = FeedQuery;

export const ReconcileBody = Type.Object(
  {
    candidates: Type.Optional(
      Type.Array(Type.Object({ id: Uuid, occurred_at: Ts }, { additionalProperties: false }), {
        maxItems: NAV_LIMITS.candidates,
        description: 'keys from the live stream; up to 512, duplicates collapse',
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReconcileFieldCodes: Record<string, string> = { ...FeedFieldCodes, candidates: 'bad_request' };

export const ReconcileReply = Type.Object({
  rows: Type.Array(EventJson),
  next_ts: Type.Union([Ts, Type.Null()], { description: 'always null: every matching candidate is in rows' }),
  next_id: Type.Union([Uuid, Type.Null()]),
});
