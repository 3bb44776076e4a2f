import { Type, type Static } from 'typebox';
import { LOG_LEVELS } from './config.types.js';

/** One line of configuration: the writer quotes it, but a line break would end the directive. */
const Value = (opts: { minLength?: number; maxLength?: number } = {}) =>
  Type.String({ pattern: '^[^\\r\\n]*$', maxLength: 4096, ...opts });

export const AuthBlockBody = Type.Object(
  {
    admin_password: Type.Optional(Value()),
    session_secret: Type.Optional(Value()),
    admin_ip_bind: Type.Optional(Type.Boolean()),
    api_read_token: Type.Optional(Value()),
    api_write_token: Type.Optional(Value()),
  },
  { additionalProperties: false },
);

export const GlobalsBody = Type.Object(
  {
    log_level: Type.Optional(Type.Union(LOG_LEVELS.map((l) => Type.Literal(l)))),
    cluster_id: Type.Optional(Type.Union([Value({ minLength: 1, maxLength: 64 }), Type.Null()])),
    trusted_proxies: Type.Optional(
      Type.Union([Type.Array(Value({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 64 }), Type.Null()]),
    ),
    /** Replaces the whole `auth { }` block: what is not sent is removed (document 3 warns the panel about it). */
    auth: Type.Optional(AuthBlockBody),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const RollbackBody = Type.Object({ epoch: Type.Integer({ minimum: 1 }) }, { additionalProperties: false });

export const StreamBody = Type.Object(
  {
    input: Value({ minLength: 1 }),
    dvr: Type.Optional(
      Type.Union([
        Type.Object(
          { storage: Value({ minLength: 1, maxLength: 64 }), retention: Value({ minLength: 2, maxLength: 8 }) },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    on_demand: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const StreamParams = Type.Object({ name: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' }) });

export type GlobalsChange = Static<typeof GlobalsBody>;
export type StreamChange = Static<typeof StreamBody>;
