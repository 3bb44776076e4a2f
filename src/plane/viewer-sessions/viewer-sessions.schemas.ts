import { Type, type Static } from 'typebox';
import { Nullable, Uuid } from '../http/list.js';

export const SessionsQuery = Type.Object(
  {
    // A plain string: a malformed id is a camera the caller cannot see (404), as on every camera route.
    camera_id: Type.Optional(Type.String()),
    q: Type.Optional(Type.String({ maxLength: 128 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
  },
  { additionalProperties: false },
);
export type SessionsArgs = Static<typeof SessionsQuery>;
export const SessionsCodes: Record<string, string> = { q: 'query_too_long', cursor: 'bad_cursor' };

/** Document 1, "Viewer session row". */
export const ViewerSessionRow = Type.Object({
  stream: Type.String(),
  protocol: Type.String(),
  client_ip: Type.String(),
  user_agent: Type.String(),
  sub: Type.String(),
  connected_ms: Type.Integer(),
  node_id: Uuid,
  node_name: Type.String(),
  camera_id: Uuid,
  camera_name: Type.String(),
  subject_kind: Type.String(),
  subject_id: Nullable(Uuid),
  subject_name: Type.String(),
});
export type ViewerSession = Static<typeof ViewerSessionRow>;

export const SessionsPage = Type.Object({
  items: Type.Array(ViewerSessionRow),
  limit: Type.Integer(),
  next_cursor: Nullable(Type.String()),
  partial_nodes: Type.Array(Uuid),
  sampled_at: Type.Integer(),
});
