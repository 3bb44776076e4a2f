import { Type, type Static } from 'typebox';
import { Nullable } from '../http/list.js';
import { NODE_LOG_LEVELS } from './log-level.js';
import * as NodeApi from '../../common/node-api.js';

/** The filters of the node's log page: document 1's plane log (GET /api/v1/logs/plane), forwarded as given. */
export const NodeLogsQuery = Type.Object(
  {
    level: Type.Optional(Type.Union(['all', 'debug', 'info', 'warn', 'error'].map((l) => Type.Literal(l)))),
    target: Type.Optional(Type.String({ maxLength: 128 })),
    q: Type.Optional(Type.String({ maxLength: 128 })),
    after: Type.Optional(Type.Integer({ minimum: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500 })),
  },
  { additionalProperties: false },
);
export type NodeLogsArgs = Static<typeof NodeLogsQuery>;
export const NodeLogsCodes: Record<string, string> = {
  level: 'bad_level',
  target: 'log_filter_too_long',
  q: 'log_filter_too_long',
  after: 'bad_after',
};

const LogEntry = Type.Object({
  seq: Type.Integer(),
  ts_ms: Type.Integer(),
  level: Type.String(),
  target: Type.String(),
  message: Type.String(),
});
export const NodeLogsReply = Type.Object({
  head_seq: Type.Integer(),
  capacity: Type.Integer(),
  entries: Type.Array(LogEntry),
});

// The node's replies forwarded as they are: the node's own schemas (src/common/node-api.ts).
/** The node's own session rows (its GET /api/v1/sessions), as it reports them. */
export const NodeSessionsReply = NodeApi.NodeSessionsReply;
export const NodeConfigReply = NodeApi.NodeConfigReply;

/** One line of configuration, as the node's own schema has it (a line break would end the directive). */
const Value = (opts: { minLength?: number; maxLength?: number } = {}) =>
  Type.String({ pattern: '^[^\\r\\n]*$', maxLength: 4096, ...opts });

/** The node's PATCH /api/v1/config/globals body, checked here first so that the node sees only well-formed changes. */
export const GlobalsBody = Type.Object(
  {
    log_level: Type.Optional(Type.Union(NODE_LOG_LEVELS.map((l) => Type.Literal(l)))),
    cluster_id: Type.Optional(Type.Union([Value({ minLength: 1, maxLength: 64 }), Type.Null()])),
    trusted_proxies: Type.Optional(
      Type.Union([Type.Array(Value({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 64 }), Type.Null()]),
    ),
    auth: Type.Optional(
      Type.Object(
        {
          admin_password: Type.Optional(Value()),
          session_secret: Type.Optional(Value()),
          admin_ip_bind: Type.Optional(Type.Boolean()),
          api_read_token: Type.Optional(Value()),
          api_write_token: Type.Optional(Value()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type GlobalsChange = Static<typeof GlobalsBody>;
export const GlobalsCodes: Record<string, string> = {};

export const ChangeReply = NodeApi.NodeChangeReply;

export const LoggingBody = Type.Object(
  { level: Type.Union(NODE_LOG_LEVELS.map((l) => Type.Literal(l))) },
  { additionalProperties: false },
);
export const LoggingCodes: Record<string, string> = { level: 'bad_level' };
export const LoggingReply = Type.Object({ level: Type.String() });

export const NodeLicenseReply = Type.Object({
  state: Type.String(),
  licensee: Nullable(Type.String()),
  expires: Nullable(Type.String()),
  updates_until: Nullable(Type.String()),
  build_date: Nullable(Type.String()),
});

export const NodeHistoryReply = Type.Object({ rows: NodeApi.NodeHistoryReply });
export const RollbackBody = Type.Object({ epoch: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });
export const RollbackCodes: Record<string, string> = { epoch: 'bad_epoch' };
// write_token_kept: the node carried the write token in use across the rollback (docs/node-ops.md); absent from older nodes.
export const RollbackReply = Type.Object({
  epoch: Type.Integer(),
  hash: Type.String(),
  changed: Type.Boolean(),
  rolled_from: Type.Integer(),
  write_token_kept: Type.Optional(Type.Boolean()),
});
