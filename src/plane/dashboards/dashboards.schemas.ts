import { Type } from 'typebox';

// Bodies take loose types where document 2 names a code for a wrong value (analytics_bad_name,
// analytics_bad_options...): the service checks them and answers that code, not a generic one.
const loose = Type.Optional(Type.Unknown());

export const ReportBody = Type.Object(
  {
    name: loose,
    definition: loose,
    visibility: loose,
    audience_user_ids: loose,
    org_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false },
);
export const ReportPatch = Type.Object(
  {
    revision: Type.Integer(),
    name: loose,
    definition: loose,
    visibility: loose,
    audience_user_ids: loose,
  },
  { additionalProperties: false },
);

export const DashboardBody = Type.Object(
  {
    name: loose,
    description: loose,
    timezone: loose,
    default_period: loose,
    live_enabled: loose,
    visibility: loose,
    audience_user_ids: loose,
    org_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: false },
);
export const DashboardPatch = Type.Object(
  {
    revision: Type.Integer(),
    name: loose,
    description: loose,
    timezone: loose,
    default_period: loose,
    live_enabled: loose,
    visibility: loose,
    audience_user_ids: loose,
  },
  { additionalProperties: false },
);

export const WidgetBody = Type.Object(
  {
    report_id: loose,
    inline_definition: loose,
    title: loose,
    visualization: loose,
    options: loose,
    layout: loose,
    position: loose,
  },
  { additionalProperties: false },
);
export const WidgetPatch = Type.Object(
  {
    revision: Type.Integer(),
    report_id: loose,
    inline_definition: loose,
    title: loose,
    visualization: loose,
    options: loose,
    layout: loose,
    position: loose,
  },
  { additionalProperties: false },
);

const Audience = { visibility: Type.String(), audience_user_ids: Type.Array(Type.String()) };
const Stamps = { revision: Type.Integer(), created_at: Type.String(), updated_at: Type.String() };

export const ReportOut = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  definition: Type.Unknown(),
  ...Audience,
  created_by: Type.Union([Type.String(), Type.Null()]),
  ...Stamps,
});
export const ReportPage = Type.Object({ rows: Type.Array(ReportOut), next: Type.Union([Type.String(), Type.Null()]) });
export const ReportListQuery = Type.Object({
  org: Type.Optional(Type.String({ format: 'uuid' })),
  after: Type.Optional(Type.String({ format: 'uuid' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
export const RunQuery = Type.Object({ timezone: Type.Optional(Type.String({ maxLength: 128 })) });

export const WidgetOut = Type.Object({
  id: Type.String(),
  dashboard_id: Type.String(),
  report_id: Type.Union([Type.String(), Type.Null()]),
  inline_definition: Type.Unknown(),
  title: Type.String(),
  visualization: Type.String(),
  options: Type.Unknown(),
  layout: Type.Unknown(),
  position: Type.Integer(),
  ...Stamps,
});
export const DashboardOut = Type.Object({
  id: Type.String(),
  org_id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  timezone: Type.String(),
  default_period: Type.String(),
  live_enabled: Type.Boolean(),
  ...Audience,
  created_by: Type.Union([Type.String(), Type.Null()]),
  ...Stamps,
});
export const DashboardFull = Type.Object({
  ...DashboardOut.properties,
  widgets: Type.Array(WidgetOut),
  audience_users: Type.Array(Type.Object({ id: Type.String(), login: Type.String(), name: Type.String() })),
});
export const DashboardList = Type.Object({ rows: Type.Array(DashboardOut) });
export const OrgQuery = Type.Object({ org: Type.Optional(Type.String({ format: 'uuid' })) });
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });
