import { ApiError } from '../common/api-error.js';

export { ApiError };

/**
 * The plane's error catalogue: every code the API can answer, each a factory thrown where
 * its rule lives. `describeErrors()` feeds the OpenAPI document; a test proves they agree.
 */
export const errors = {
  unauthorized: () => new ApiError(401, 'unauthorized'),
  invalidCredentials: () => new ApiError(401, 'invalid_credentials'),
  forbidden: () => new ApiError(403, 'forbidden'),
  crossOrg: () => new ApiError(403, 'cross_org'),
  auditNotVisible: () => new ApiError(403, 'audit is not visible to operators'),
  notFound: () => new ApiError(404, 'not_found'),
  methodNotAllowed: (allow: string[]) => new ApiError(405, 'method_not_allowed', {}, { allow: allow.join(', ') }),
  alreadyExists: () => new ApiError(409, 'already_exists'),
  alreadyClosed: () => new ApiError(409, 'already_closed'),
  stillReferenced: () => new ApiError(409, 'still_referenced'),
  conflict: (code: (typeof conflictCodes)[number]) => new ApiError(409, code),
  quotaReached: (code: (typeof quotaCodes)[number]) => new ApiError(409, code),
  systemTemplateSuperadminOnly: () => new ApiError(403, 'system_template_superadmin_only'),
  systemTemplateReadonly: () => new ApiError(409, 'system_template_readonly'),
  analyticsTemplateInUse: () => new ApiError(409, 'analytics_template_in_use'),
  eventSearchTooBroad: (candidateLimit: number) =>
    new ApiError(422, 'event_search_too_broad', { candidate_limit: candidateLimit }),
  eventSearchBusy: () => new ApiError(429, 'event_search_busy', { retry_after: 1 }, { 'retry-after': '1' }),
  eventSearchDeadline: () => new ApiError(503, 'event_search_deadline', { retry_after: 1 }, { 'retry-after': '1' }),
  // analytics' own slots and deadline (issue 25; the spec names none: the search's shape, docs/analytics.md)
  analyticsBusy: (scope: 'global' | 'org') =>
    new ApiError(429, 'analytics_busy', { scope, retry_after: 1 }, { 'retry-after': '1' }),
  analyticsDeadline: () => new ApiError(503, 'analytics_deadline', { retry_after: 1 }, { 'retry-after': '1' }),
  payloadTooLarge: () => new ApiError(413, 'payload_too_large'),
  // a path parameter past the router's length limit (docs/hardening.md)
  uriTooLong: () => new ApiError(414, 'uri_too_long'),
  unsupportedMediaType: () => new ApiError(415, 'unsupported_media_type'),
  badJson: () => new ApiError(400, 'bad_json'),
  loginThrottled: (retryAfter: number) =>
    new ApiError(429, 'too_many_login_attempts', { retry_after: retryAfter }, { 'retry-after': String(retryAfter) }),
  liveStreamCapacity: (scope: 'global' | 'principal') =>
    new ApiError(429, 'live_stream_capacity', { scope, retry_after: 2 }, { 'retry-after': '2' }),
  rateLimited: (retryAfter: number) =>
    new ApiError(429, 'rate_limited', { retry_after: retryAfter }, { 'retry-after': String(retryAfter) }),
  attachmentTooLarge: () => new ApiError(413, 'attachment_too_large'),
  // more uploads at once than the process streams and queues (docs/hardening.md)
  attachmentUploadBusy: () => new ApiError(429, 'attachment_upload_busy', { retry_after: 1 }, { 'retry-after': '1' }),
  objectGone: () => new ApiError(404, 'object_gone'),
  archivedDataExpired: () => new ApiError(410, 'archived_data_expired'),
  // a notification's snapshot link past its 24 h (document 4 §13 leaves the code open: docs/notifications.md)
  snapshotLinkExpired: () => new ApiError(410, 'snapshot_link_expired'),
  eventPurgeEmpty: () => new ApiError(409, 'event_purge_empty'),
  noPreview: () => new ApiError(404, 'no_preview'),
  eventResponseBusy: () => new ApiError(429, 'event_response_busy', { retry_after: 1 }, { 'retry-after': '1' }),
  attachmentQuotaExceeded: () => new ApiError(507, 'attachment_quota_exceeded'),
  // the evidence storage is at or above its critical watermark (document 4 §10); events are still accepted
  evidenceStorageFull: () => new ApiError(507, 'evidence_storage_full'),
  // the disk under evidence or a settings file is full (docs/fault-suites.md)
  storageFull: () => new ApiError(507, 'storage_full'),
  notImplemented: () => new ApiError(501, 'not_implemented'),
  rotateFailed: () => new ApiError(500, 'rotate_failed'),
  internal: () => new ApiError(500, 'internal_error'),
  responseEncodeFailed: () => new ApiError(500, 'response_encode_failed'),
  dbUnavailable: () => new ApiError(503, 'db_unavailable'),
  // every pooled connection stayed busy past the wait bound: the database answers (docs/hardening.md)
  dbBusy: () => new ApiError(503, 'db_busy', { retry_after: 1 }, { 'retry-after': '1' }),
  // the environment (RUST_LOG / ARGUS_LOG) owns the log level (document 1, settings)
  rustLogOverride: () => new ApiError(409, 'rust_log_override'),
  badRequest: (code: BadRequestCode, extra: Record<string, unknown> = {}) => new ApiError(400, code, extra),
  // a node's stored base URL does not make a request URL (document 1, GET /api/v1/sessions)
  urlBuildFailed: () => new ApiError(500, 'url_build_failed'),
  // control-plane settings (document 1): a validation message in place of a code, an unreadable plane.toml
  settingsInvalid: (text: string) => new ApiError(400, text),
  planeConfigUnreadable: (detail: string) => new ApiError(500, `plane_config_unreadable:${detail}`),
  // a candidate evidence storage failed its write/read/delete check: the failure detail as the error
  storageCheckFailed: (detail: string) => new ApiError(502, detail),
  // per-node routes (document 4 §9; docs/node-ops.md)
  nodeUnreachable: () => new ApiError(502, 'node_unreachable'),
  nodeAuthFailed: () => new ApiError(502, 'node_auth_failed'),
  nodeBadReply: (nodeStatus: number | null = null) => new ApiError(502, 'node_bad_reply', { node_status: nodeStatus }),
  // exports (document 4 §14, docs/exports.md): the node has nothing recorded in the range, or could not make the file
  noRecording: () => new ApiError(404, 'no_recording'),
  exportFailed: () => new ApiError(502, 'export_failed'),
  exportTooLong: (maxSecs: number) => new ApiError(400, 'export_too_long', { max_secs: maxSecs }),
} as const;

const conflictCodes = [
  'node_in_use',
  'org_not_empty',
  'viewer_secret_unset',
  // saved reports, dashboards and widgets (document 2, document 4 §11)
  'stale_revision',
  'analytics_dashboard_visibility',
  'analytics_widget_limit',
  // control-plane settings (document 1)
  'settings_busy',
  'settings_changed',
  'event_storage_rotation_blocked',
  // notifications (document 4 §13): retry requeues only a dead delivery
  'delivery_not_dead',
] as const;
// max_reports_reached and max_dashboards_reached: issue 13 attaches them to its tables (docs/usage.md).
const quotaCodes = [
  'max_users_reached',
  'max_cameras_reached',
  'max_tags_reached',
  'max_event_templates_reached',
  'max_reports_reached',
  'max_dashboards_reached',
] as const;

/** 400 codes: those of document 1 (audit) and the validation codes of the inventory routes. */
export const badRequestCodes = [
  'bad_request',
  // purge of history (document 2)
  'event_purge_selection_too_large',
  'bad_time_range',
  'bad_detector',
  'bad_severity_min',
  'bad_event_ids',
  'bad_as_of',
  'bad_audit_cursor',
  'bad_audit_range',
  'audit_search_must_be_2_to_128_chars',
  'audit_search_requires_explicit_range',
  'audit_search_range_max_31_days',
  'bad_audit_action',
  'bad_audit_object_type',
  'query_too_long',
  'bad_cursor',
  'bad_limit',
  'bad_name',
  'bad_login',
  'bad_password',
  'bad_role',
  'bad_url',
  'bad_source_url',
  'bad_limit_value',
  'unknown_node',
  'unknown_tag',
  'unknown_camera',
  'unknown_org',
  'bad_last_event_id',
  'unknown_field',
  'bad_org',
  'bad_token',
  'reserved_name',
  'bad_rate_limit',
  'bad_events',
  // viewing (document 4 section 3, POST /api/v1/cameras/{id}/play)
  'bad_profile',
  'bad_intent',
  'bad_range',
  // a camera's recording (issue 11)
  'bad_recording',
  // adjacent, navigate, reconcile (document 2, Feed)
  'bad_direction',
  'bad_excluded_detectors',
  'bad_anchor',
  'bad_camera',
  'event_reconcile_too_many_candidates',
  'event_reconcile_cursor_not_allowed',
  'event_reconcile_span_too_wide',
  'bad_event_cursor',
  'bad_event_range',
  'bad_severity',
  'bad_severity_range',
  'bad_category',
  'not_interval',
  'bad_ended_at',
  'ended_at is before occurred_at',
  'ended_at is in the future',
  'event_search_too_short',
  // template documents (document 2, Templates)
  'bad_doc',
  'template_doc_too_large',
  'template_title_invalid',
  'detector_match_required',
  'detector_match_too_long',
  'list_fields_too_many',
  'list_field_bad_key',
  'list_field_bad_source',
  'list_field_bad_metadata',
  'attachment_fields_too_many',
  'attachment_field_bad_source',
  'attachment_field_bad_metadata',
  'detail_layout_too_many',
  'detail_layout_block_too_large',
  'coalesce_sources_too_many',
  'coalesce_source_invalid',
  'bad_interval_timeout',
  'search_field_bad_source',
  'system_template_fields_readonly',
  'system_template_override_required',
  'system_template_title_invalid',
  'system_template_ignore_invalid',
  // hardening (docs/hardening.md): text PostgreSQL cannot store, JSON nested too deep
  'bad_text',
  'json_too_deep',
  // per-node routes and fleet sessions (docs/node-ops.md): the node refused a change as invalid
  'node_rejected',
  'node_write_token_required',
  // the control-plane log (document 1): filter strings past 128 characters, an unknown level, a bad after
  'log_filter_too_long',
  'bad_level',
  'bad_epoch',
  'bad_after',
  // analytics queries (document 2 "Analytics", document 4 §11)
  'analytics_bad_range',
  'analytics_bad_timezone',
  'analytics_version_unsupported',
  'analytics_top_limit',
  'analytics_field_required',
  'active_semantics_cannot_bucket',
  'analytics_filter_too_large',
  'analytics_bad_detector',
  'analytics_bad_severity',
  'analytics_bad_category',
  'analytics_field_bad_key',
  'analytics_field_bad_filter',
  'analytics_field_not_found',
  'analytics_field_operator_type',
  'analytics_field_filter_type',
  'analytics_custom_field_requires_org',
  'analytics_bad_batch',
  // control-plane settings (document 1)
  'no_settings_supplied',
  'dvr_export_max_secs_out_of_range',
  'invalid_public_url',
  'destructive_volume_retention_acknowledgement_required',
  // a folder that is not the plane's to use for evidence, with `reason` (docs/hardening.md, issue 25)
  'evidence_dir_refused',
  // saved reports, dashboards and widgets
  'analytics_bad_name',
  'analytics_bad_period',
  'analytics_bad_visibility',
  'analytics_dashboard_audience_required',
  'analytics_dashboard_audience_limit',
  'analytics_dashboard_bad_audience',
  'analytics_widget_source',
  'analytics_report_not_found',
  'analytics_report_visibility',
  'analytics_bad_visualization',
  'analytics_bad_options',
  'analytics_bad_layout',
  'analytics_bad_position',
  // a user's own preferences (document 4 §12, docs/preferences.md)
  'bad_timezone',
  'bad_clock',
  'bad_views',
  'bad_layout',
  'duplicate_view_name',
  // notification rules and channels (document 4 §13, docs/notifications.md)
  'bad_match',
  'bad_schedule',
  'bad_cooldown',
  'bad_channel_ids',
  'unknown_channel',
  'bad_channel_kind',
  'bad_channel_settings',
  'target_refused',
] as const;
export type BadRequestCode = (typeof badRequestCodes)[number];
type ConflictCode = (typeof conflictCodes)[number];
type QuotaCode = (typeof quotaCodes)[number];

/** The factories whose argument is the code: a route lists the code itself (below). */
type CodeFamily = 'badRequest' | 'conflict' | 'quotaReached';

/**
 * How a route names a code it may answer (its schema's `errors`, docs/api-errors.md): as the
 * code is thrown, the factory's name (`errors.crossOrg()`: 'crossOrg'), or for the three
 * families the code given to the factory (`errors.badRequest('bad_name')`: 'bad_name').
 */
export type ErrorName = Exclude<keyof typeof errors, CodeFamily> | BadRequestCode | ConflictCode | QuotaCode;

/**
 * The arguments a factory is described with when its argument chooses the code; every other
 * factory's argument (a number of seconds, a limit) does not change its code.
 */
const codeChoices: Partial<Record<keyof typeof errors, readonly unknown[]>> = {
  conflict: conflictCodes,
  quotaReached: quotaCodes,
  badRequest: badRequestCodes,
  methodNotAllowed: [[]],
  liveStreamCapacity: ['global'],
  analyticsBusy: ['global'],
  settingsInvalid: ['<configuration validation text>'],
  planeConfigUnreadable: ['<detail>'],
  storageCheckFailed: ['<pre-check detail>'],
};

/** The status and code a route's listed name stands for (a factory with a text in place of a code: its placeholder). */
export function describeError(name: ErrorName): { status: number; code: string } {
  if ((badRequestCodes as readonly string[]).includes(name)) return { status: 400, code: name };
  if ((conflictCodes as readonly string[]).includes(name) || (quotaCodes as readonly string[]).includes(name))
    return { status: 409, code: name };
  if (!Object.hasOwn(errors, name)) throw new Error(`not in the error catalogue: ${name}`);
  const make = errors[name as Exclude<keyof typeof errors, CodeFamily>] as (arg: unknown) => ApiError;
  const e = make((codeChoices[name as keyof typeof errors] ?? [1])[0]);
  return { status: e.status, code: e.code };
}

/**
 * Every (status, code) pair the catalogue can produce, for the OpenAPI document: read from the
 * catalogue itself, so a factory added there is described without being listed again.
 */
export function describeErrors(): Array<{ status: number; code: string }> {
  const out = new Map<string, { status: number; code: string }>();
  for (const [name, make] of Object.entries(errors) as Array<[keyof typeof errors, (arg: unknown) => ApiError]>) {
    for (const arg of codeChoices[name] ?? [1]) {
      const e = make(arg);
      out.set(`${e.status} ${e.code}`, { status: e.status, code: e.code });
    }
  }
  return [...out.values()];
}
