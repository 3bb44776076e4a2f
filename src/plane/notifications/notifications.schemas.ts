import { Type } from 'typebox';
import { Nullable, Uuid } from '../http/list.js';

// Bodies take loose types where a wrong value has its own code (bad_match, bad_schedule...): the
// service checks them and answers that code, not a generic one (as dashboards do).
const loose = Type.Optional(Type.Unknown());
const orgId = Type.Optional(Type.Union([Type.String(), Type.Null()]));

const ruleFields = {
  name: loose,
  enabled: loose,
  match: loose,
  schedule: loose,
  cooldown_secs: loose,
  channel_ids: loose,
};
export const RuleBody = Type.Object({ ...ruleFields, org_id: orgId }, { additionalProperties: false });
export const RulePatch = Type.Object({ revision: Type.Integer(), ...ruleFields }, { additionalProperties: false });

const channelFields = {
  name: loose,
  kind: loose,
  enabled: loose,
  url: loose,
  secret: loose,
  headers: loose,
  to: loose,
  topic: loose,
  username: loose,
  password: loose,
  qos: loose,
};
export const ChannelBody = Type.Object({ ...channelFields, org_id: orgId }, { additionalProperties: false });
export const ChannelPatch = Type.Object(
  { revision: Type.Integer(), ...channelFields },
  { additionalProperties: false },
);

const Stamps = { revision: Type.Integer(), created_at: Type.String(), updated_at: Type.String() };

export const MatchOut = Type.Object({
  detectors: Type.Array(Type.String()),
  severity_min: Type.Integer(),
  camera_ids: Type.Array(Type.String()),
  tag_ids: Type.Array(Type.String()),
  categories: Type.Array(Type.String()),
  open_only: Type.Boolean(),
});
export const ScheduleOut = Type.Object({
  timezone: Type.String(),
  windows: Type.Array(Type.Object({ days: Type.Array(Type.Integer()), from: Type.String(), to: Type.String() })),
});

export const RuleOut = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean(),
  match: MatchOut,
  schedule: Nullable(ScheduleOut),
  cooldown_secs: Type.Integer(),
  suppressed_count: Type.Integer(),
  channel_ids: Type.Array(Type.String()),
  ...Stamps,
});

/** A channel as read: the per-kind fields that apply, never a secret (`secret_configured`, `password_configured`). */
export const ChannelOut = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  kind: Type.String(),
  enabled: Type.Boolean(),
  url: Type.Optional(Type.String()),
  secret_configured: Type.Optional(Type.Boolean()),
  headers: Type.Optional(Type.Record(Type.String(), Type.String())),
  to: Type.Optional(Type.Array(Type.String())),
  topic: Type.Optional(Type.String()),
  username: Type.Optional(Nullable(Type.String())),
  password_configured: Type.Optional(Type.Boolean()),
  qos: Type.Optional(Type.Integer()),
  ...Stamps,
});

export const DeliveryOut = Type.Object({
  id: Type.String(),
  dedupe_key: Type.String(),
  event_id: Nullable(Type.String()),
  rule_id: Nullable(Type.String()),
  channel_id: Type.String(),
  org_id: Type.String(),
  state: Type.String(),
  attempts: Type.Integer(),
  last_error: Nullable(Type.String()),
  next_attempt_at: Nullable(Type.String()),
  sent_at: Nullable(Type.String()),
  created_at: Type.String(),
});

export const DeliveryListQuery = Type.Object(
  {
    org: Type.Optional(Uuid),
    after: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500 })),
    rule_id: Type.Optional(Uuid),
    channel_id: Type.Optional(Uuid),
    event_id: Type.Optional(Uuid),
    state: Type.Optional(Type.Union(['pending', 'sent', 'failed', 'dead'].map((s) => Type.Literal(s)))),
    // Not in document 4 §13, decided in docs/notifications.md: the console's log reads newest first.
    order: Type.Optional(Type.Union([Type.Literal('oldest'), Type.Literal('newest')], { default: 'oldest' })),
  },
  { additionalProperties: false },
);
