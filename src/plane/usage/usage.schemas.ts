import { Type } from 'typebox';
import { Nullable, Uuid } from '../http/list.js';

export const UsageQuery = Type.Object({ org_id: Type.Optional(Uuid) }, { additionalProperties: false });

const count = () => Type.Integer({ minimum: 0 });
const max = () => Nullable(Type.Integer());

/** Document 1, "Quota usage": every field, integers except org_id and org_name; maxima null = unlimited. */
export const UsageRow = Type.Object({
  org_id: Uuid,
  org_name: Type.String(),
  cameras_count: count(),
  max_cameras: max(),
  users_count: count(),
  max_users: max(),
  attachment_bytes: count(),
  attachment_quota_bytes: max(),
  sessions_count: count(),
  max_sessions_per_user: max(),
  dashboards_count: count(),
  max_dashboards: max(),
  reports_count: count(),
  max_reports: max(),
  tags_count: count(),
  max_tags: max(),
  event_templates_count: count(),
  max_event_templates: max(),
  agents_count: count(),
  max_agents: max(),
  agent_devices_count: count(),
  max_agent_devices: max(),
  agent_access_rules_count: count(),
  max_agent_access_rules: max(),
  events_count: count(),
  attachments_count: count(),
});
