import { Type } from 'typebox';
// The one timestamp rule of every route (issue 25, finding 7).
import { Timestamp as Ts } from '../../common/time.js';

const Uuid = Type.String({ format: 'uuid' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const AuditListQuery = Type.Object({
  org: Type.Optional(Uuid),
  before_ts: Type.Optional(Ts),
  before_id: Type.Optional(Uuid),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  occurred_from: Type.Optional(Ts),
  occurred_to: Type.Optional(Ts),
  actor_id: Type.Optional(Uuid),
  action: Type.Optional(Type.String()),
  object_type: Type.Optional(Type.String()),
  object_id: Type.Optional(Uuid),
  node_id: Type.Optional(Uuid),
  q: Type.Optional(Type.String()),
});

export const AuditRow = Type.Object({
  id: Uuid,
  occurred_at: Ts,
  ended_at: Nullable(Ts),
  org_id: Nullable(Uuid),
  actor_id: Nullable(Uuid),
  actor_name: Type.String(),
  actor_role: Type.String(),
  ip: Type.String(),
  user_agent: Type.String(),
  action: Type.String(),
  object_type: Type.String(),
  object_id: Nullable(Uuid),
  object_name: Type.String(),
  params: Type.Object({}, { additionalProperties: true }),
  node_id: Nullable(Uuid),
});

export const AuditListReply = Type.Object({ rows: Type.Array(AuditRow), stream_cursor: Type.String() });
// A malformed id is a record that does not exist (404), as on every other route with a path id.
export const AuditGetParams = Type.Object({ id: Type.String({ description: 'uuid of the record' }) });
export const AuditGetQuery = Type.Object({ occurred_at: Ts, org: Type.Optional(Uuid) });
export const AuditActionsReply = Type.Object({ rows: Type.Array(Type.String()) });
export const AuditStreamQuery = Type.Object({ org: Type.Optional(Uuid), last_event_id: Type.Optional(Type.String()) });

/** The export ignores `limit` (always 500), so it is not validated there. */
export const AuditExportQuery = Type.Object({ ...AuditListQuery.properties, limit: Type.Optional(Type.String()) });
