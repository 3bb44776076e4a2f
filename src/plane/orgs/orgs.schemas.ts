import { Type } from 'typebox';
import { Name, NullableBody, Nullable, Uuid } from '../http/list.js';

/** Every max_* limit of the quota usage object (document 1); null = unlimited, 0 = none allowed. */
export const LIMIT_FIELDS = [
  'max_cameras',
  'max_users',
  'attachment_quota_bytes',
  'max_sessions_per_user',
  'max_dashboards',
  'max_reports',
  'max_tags',
  'max_event_templates',
  'max_agents',
  'max_agent_devices',
  'max_agent_access_rules',
] as const;
export type LimitField = (typeof LIMIT_FIELDS)[number];

const OrgName = Name;
const limitIn = () => NullableBody(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }));
const limitOut = () => Nullable(Type.Integer());

const limitsIn = Object.fromEntries(LIMIT_FIELDS.map((f) => [f, Type.Optional(limitIn())])) as Record<
  LimitField,
  ReturnType<typeof Type.Optional<ReturnType<typeof limitIn>>>
>;
const limitsOut = Object.fromEntries(LIMIT_FIELDS.map((f) => [f, limitOut()])) as Record<
  LimitField,
  ReturnType<typeof limitOut>
>;

export const OrgRow = Type.Object({ id: Uuid, name: Type.String(), ...limitsOut });
export const OrgCreateBody = Type.Object({ name: OrgName, ...limitsIn }, { additionalProperties: false });
export const OrgPatchBody = Type.Object({ name: Type.Optional(OrgName), ...limitsIn }, { additionalProperties: false });

export type OrgCreate = { name: string } & Partial<Record<LimitField, number | null>>;
export type OrgPatch = Partial<OrgCreate>;
export const OrgFieldCodes: Record<string, string> = {
  name: 'bad_name',
  ...Object.fromEntries(LIMIT_FIELDS.map((f) => [f, 'bad_limit_value'])),
};

export const OrgDeleted = Type.Object({
  id: Uuid,
  deleted: Type.Literal(true),
  cleanup_job_id: Type.Union([Uuid, Type.Null()], {
    description: 'the cleanup job (kind `archive`) that removes the event history; null when there was none',
  }),
});
