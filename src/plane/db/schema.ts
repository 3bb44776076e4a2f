import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string, Date | string>;
type DefaultedTimestamp = ColumnType<Date, Date | string | undefined, Date | string>;
/** Nullable with a null default: inserts may leave it out. */
type OptionalTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export interface OrgsTable {
  id: string;
  name: string;
  max_cameras: number | null;
  max_users: number | null;
  attachment_quota_bytes: number | null;
  max_sessions_per_user: number | null;
  max_dashboards: number | null;
  max_reports: number | null;
  max_tags: number | null;
  max_event_templates: number | null;
  max_agents: number | null;
  max_agent_devices: number | null;
  max_agent_access_rules: number | null;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  /** set while the archive cleanup of a deleted organisation runs (0008) */
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface UsersTable {
  id: string;
  org_id: string;
  login: string;
  name: string;
  role: 'superadmin' | 'admin' | 'user';
  password_hash: string;
  disabled: Generated<boolean>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface SigningKeysTable {
  singleton: Generated<boolean>;
  material_id: string;
  epoch: number;
  secret: Uint8Array;
  rotated_at: DefaultedTimestamp;
}

export interface SessionsTable {
  id: string;
  user_id: string;
  org_id: string;
  kid: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
  ip: Generated<string>;
  user_agent: Generated<string>;
  /** Set by the usage.session_expiry job once an expired session left sessions_count (0013). */
  expired_swept: Generated<boolean>;
}

export interface TagsTable {
  id: string;
  org_id: string;
  name: string;
  created_at: DefaultedTimestamp;
}

export interface NodesTable {
  id: string;
  name: string;
  url: string;
  api_token_enc: string;
  auth_backend_secret_enc: string | null;
  enabled: Generated<boolean>;
  state: Generated<string>;
  last_seen_at: Timestamp | null;
  version: string | null;
  unreachable_since: OptionalTimestamp;
  polled_at: OptionalTimestamp;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface CamerasTable {
  id: string;
  org_id: string;
  node_id: string;
  name: string;
  main_source: string;
  sub_source: string | null;
  status: Generated<'live' | 'unavailable' | 'degraded' | 'failing'>;
  offline_since: OptionalTimestamp;
  recording_retention: Generated<string | null>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface CameraTagsTable {
  camera_id: string;
  tag_id: string;
}
export interface UserCameraGrantsTable {
  user_id: string;
  camera_id: string;
}
export interface UserTagGrantsTable {
  user_id: string;
  tag_id: string;
}

export interface AuditTable {
  id: string;
  seq: number;
  occurred_at: Timestamp;
  ended_at: Timestamp | null;
  org_id: string | null;
  actor_id: string | null;
  actor_name: string;
  actor_role: string;
  ip: string;
  user_agent: string;
  action: string;
  object_type: string;
  object_id: string | null;
  object_name: string;
  params: ColumnType<Record<string, unknown>, string, string>;
  node_id: string | null;
  extensions: Generated<number>;
  search: ColumnType<never, never, never>;
  /** the record as the JSON object of an API row, rendered by the database (generated) */
  doc: ColumnType<string, never, never>;
}

export interface ModuleTokensTable {
  id: string;
  org_id: string;
  name: string;
  secret_sha256: Uint8Array;
  rate_limit: number | null;
  enabled: Generated<boolean>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
  last_used_at: Timestamp | null;
}

export interface EventStreamTable {
  singleton: Generated<boolean>;
  purge_day: string | null;
}

type Json<T = unknown> = ColumnType<T, string, string>;

export interface EventsTable {
  id: string;
  occurred_at: Timestamp;
  seq: number;
  org_id: string;
  camera_id: string | null;
  node_id: string | null;
  token_id: string | null;
  category: 'camera' | 'system';
  detector: string;
  detector_title: Json | null;
  severity: number | null;
  confidence: number | null;
  interval: boolean;
  ended_at: Timestamp | null;
  template_id: string | null;
  subject_type: string | null;
  subject_ref: string | null;
  ext_id: string | null;
  list_values: Json<unknown[]>;
  fields: Json<Record<string, unknown>>;
  payload: Json<Record<string, unknown>>;
  attachments: Json<unknown[]>;
  starred: Generated<boolean>;
  search: ColumnType<string, string | undefined, string>;
  coalesce_key: ColumnType<string | null, string | null | undefined, string | null>;
  last_seen_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  close_by: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface EventTemplatesTable {
  id: string;
  org_id: string | null;
  name: string;
  detector_match: string;
  version: Generated<number>;
  doc: Json<Record<string, unknown>>;
  system: Generated<boolean>;
  enabled: Generated<boolean>;
  unknown_fields: Json<string[]>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface EventExtIdsTable {
  token_id: string;
  ext_id: string;
  event_id: string;
  occurred_at: Timestamp;
}

export interface AttachmentsTable {
  ref: string;
  org_id: string;
  token_id: string | null;
  backend: string;
  storage_key: string;
  content_type: string;
  size: number;
  sha256: Uint8Array;
  camera_id: string | null;
  event_id: string | null;
  event_occurred_at: Timestamp | null;
  created_at: DefaultedTimestamp;
}

export interface OrgEvidenceUsageTable {
  org_id: string;
  bytes: Generated<number>;
  attachments: Generated<number>;
}

/** Prepared usage counters (0013): per organisation up to 16 shards, a read sums them. */
export interface OrgUsageCountersTable {
  org_id: string;
  shard: number;
  cameras: Generated<number>;
  users: Generated<number>;
  tags: Generated<number>;
  event_templates: Generated<number>;
  dashboards: Generated<number>;
  reports: Generated<number>;
  events: Generated<number>;
  sessions: Generated<number>;
}

/** Hourly event counts for analytics (migration 0014), kept by statement triggers on events; up to 8 shards per key. */
export interface EventRollupsTable {
  org_id: string;
  hour: Date;
  detector: string;
  category: string;
  severity: number | null;
  shard: number;
  n: number;
  conf_sum: number;
  conf_n: number;
}

/** Saved reports, dashboards and widgets (migration 0015). */
export interface AnalyticsReportsTable {
  id: string;
  org_id: string;
  name: string;
  definition: unknown;
  visibility: string;
  audience_user_ids: string[];
  created_by: string | null;
  revision: Generated<number>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}
export interface AnalyticsDashboardsTable {
  id: string;
  org_id: string;
  name: string;
  description: string;
  timezone: string;
  default_period: string;
  live_enabled: boolean;
  visibility: string;
  audience_user_ids: string[];
  created_by: string | null;
  revision: Generated<number>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}
export interface AnalyticsWidgetsTable {
  id: string;
  dashboard_id: string;
  report_id: string | null;
  inline_definition: unknown;
  title: string;
  visualization: string;
  options: unknown;
  layout: unknown;
  position: number;
  revision: Generated<number>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}

export interface SweeperLeaseTable {
  id: number;
  holder: string;
  expires_at: Date;
}
export interface EvidencePressureTable {
  id: number;
  level: Generated<number>;
  used_percent: number | null;
  measured_at: OptionalTimestamp;
}

/** The fleet monitor's shared state (migration 0012): the latest sweep's numbers and summary. */
export interface MonitorFleetTable {
  id: number;
  seq: Generated<number>;
  frame_seq: Generated<number>;
  summary: unknown;
}
/** The latest telemetry frame of each node the latest sweep polled. */
export interface MonitorNodeFramesTable {
  node_id: string;
  seq: number;
  known_total: number | null;
  frame: unknown;
  /** each stream's state and ingest figures of the latest sweep (0019) */
  streams: unknown;
}

/** A user's own console preferences (0017): the document of GET/PUT /api/v1/me/preferences. */
export interface UserPreferencesTable {
  user_id: string;
  doc: unknown;
  updated_at: DefaultedTimestamp;
}

export interface Schema {
  orgs: OrgsTable;
  users: UsersTable;
  signing_keys: SigningKeysTable;
  sessions: SessionsTable;
  tags: TagsTable;
  nodes: NodesTable;
  cameras: CamerasTable;
  camera_tags: CameraTagsTable;
  user_camera_grants: UserCameraGrantsTable;
  user_tag_grants: UserTagGrantsTable;
  audit: AuditTable;
  module_tokens: ModuleTokensTable;
  event_stream: EventStreamTable;
  events: EventsTable;
  event_ext_ids: EventExtIdsTable;
  attachments: AttachmentsTable;
  org_evidence_usage: OrgEvidenceUsageTable;
  org_usage_counters: OrgUsageCountersTable;
  event_rollups: EventRollupsTable;
  analytics_reports: AnalyticsReportsTable;
  analytics_dashboards: AnalyticsDashboardsTable;
  analytics_widgets: AnalyticsWidgetsTable;
  event_templates: EventTemplatesTable;
  evidence_pressure: EvidencePressureTable;
  monitor_fleet: MonitorFleetTable;
  monitor_node_frames: MonitorNodeFramesTable;
  sweeper_lease: SweeperLeaseTable;
  user_preferences: UserPreferencesTable;
}
