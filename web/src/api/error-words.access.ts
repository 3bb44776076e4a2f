import { limitOf, tryAgain, type WordTable } from './error-words.shared.js';

/**
 * Sentences for the catalogue's codes about who may do what, conflicts with the current state,
 * quotas, load and the plane's own failures (src/plane/errors.ts; documents 1-4).
 */
export const accessWords: WordTable = {
  // who may
  unauthorized: 'Your session has ended. Sign in again.',
  invalid_credentials: 'Wrong login or password.',
  forbidden: 'Your role does not allow this.',
  cross_org: 'This belongs to another organisation, which your account cannot change.',
  'audit is not visible to operators': 'The audit log is visible to administrators only.',
  system_template_superadmin_only: 'Only a superadministrator may change a system template.',
  // what is there
  not_found: 'Not found: it may have been deleted, or it is not yours to see.',
  method_not_allowed: (x) =>
    `This action is not offered here${typeof x.allow === 'string' && x.allow ? ` (allowed: ${x.allow})` : ''}.`,
  object_gone: 'The file is recorded, but its bytes are no longer in the evidence storage.',
  archived_data_expired: 'This belongs to an archived period whose data has been removed.',
  snapshot_link_expired: 'This snapshot link has expired: links in notifications are valid for 24 hours.',
  no_preview: 'No preview for this file yet: it may not be previewable, or it is still being built. Try again later.',
  not_implemented: 'This is not available in this version of the plane.',
  // conflicts with the current state
  already_exists: 'That name is already taken: choose another.',
  already_closed: 'This event was already closed.',
  still_referenced: 'It is still in use elsewhere: remove what uses it first.',
  node_in_use: 'The node still has cameras: move or delete them first.',
  org_not_empty: 'The organisation still holds people, cameras or other objects: remove them first.',
  viewer_secret_unset:
    'The node has no viewer secret yet, so its video cannot be played. An administrator sets it on the node.',
  stale_revision: 'Someone else saved this in the meantime: reload to see their version.',
  analytics_dashboard_visibility: "The new audience is wider than one of the dashboard's reports allows.",
  analytics_widget_limit: 'A dashboard holds at most 32 widgets: remove one first.',
  settings_busy: 'Another settings change is being saved: try again in a moment.',
  settings_changed: 'The settings changed since this page was loaded: reload and try again.',
  event_storage_rotation_blocked:
    'The evidence storage being retired still holds files: run "argus-plane evidence migrate" first.',
  system_template_readonly: 'A system template cannot be changed this way.',
  analytics_template_in_use: 'Saved reports or dashboards use fields of this template: change them first.',
  event_purge_empty: 'No event matches this selection: nothing to purge.',
  rust_log_override:
    "The log level is set by the plane's environment (RUST_LOG or ARGUS_LOG), so it cannot be changed here.",
  // quotas of the organisation
  max_users_reached: (x) => `The organisation has reached its limit of people${limitOf(x)}.`,
  max_cameras_reached: (x) => `The organisation has reached its limit of cameras${limitOf(x)}.`,
  max_tags_reached: (x) => `The organisation has reached its limit of tags${limitOf(x)}.`,
  max_event_templates_reached: (x) => `The organisation has reached its limit of event templates${limitOf(x)}.`,
  max_reports_reached: (x) => `The organisation has reached its limit of saved reports${limitOf(x)}.`,
  max_dashboards_reached: (x) => `The organisation has reached its limit of dashboards${limitOf(x)}.`,
  // what was sent
  payload_too_large: 'What was sent is too large for the plane.',
  uri_too_long: 'The address is too long.',
  unsupported_media_type: 'The plane cannot read what was sent (unsupported content type).',
  bad_json: 'What was sent is not valid JSON.',
  attachment_too_large: 'The attachment is too large.',
  // load: the plane says how long to wait
  too_many_login_attempts: (x) => `Too many sign-in attempts. ${tryAgain(x)}`,
  rate_limited: (x) => `Too many requests. ${tryAgain(x)}`,
  live_stream_capacity: (x) =>
    `${x.scope === 'principal' ? 'You have too many live streams open: close a tab.' : 'The plane serves as many live streams as it can.'} ${tryAgain(x)}`,
  attachment_upload_busy: (x) => `Too many uploads at once. ${tryAgain(x)}`,
  event_response_busy: (x) => `The plane is busy answering other event requests. ${tryAgain(x)}`,
  event_search_busy: (x) => `Busy: too many event searches at once. ${tryAgain(x)}`,
  event_search_deadline: (x) => `The search took too long: narrow it (dates, detectors). ${tryAgain(x)}`,
  event_search_too_broad: (x) =>
    `The search matches too many events${typeof x.candidate_limit === 'number' ? ` (more than ${x.candidate_limit})` : ''}: narrow the dates or add filters.`,
  analytics_busy: (x) =>
    `Busy: too many analytics queries at once${x.scope === 'org' ? ' in your organisation' : ''}. ${tryAgain(x)}`,
  analytics_deadline: (x) => `The analytics query took too long: shorten the period or narrow it. ${tryAgain(x)}`,
  db_busy: (x) => `The database is busy. ${tryAgain(x)}`,
  // storage
  attachment_quota_exceeded: "The organisation's evidence quota is used up.",
  evidence_storage_full:
    'The evidence storage is full: attachments are refused until space is freed (events are still accepted).',
  storage_full: "The plane's disk is full: free space on its host.",
  // the plane's own failures
  rotate_failed: 'The secret could not be rotated: try again.',
  internal_error: 'The plane failed while doing this. Try again, and tell your administrator if it persists.',
  response_encode_failed: 'The plane could not send this answer. Tell your administrator.',
  db_unavailable: 'The plane cannot reach its database. Try again shortly.',
  url_build_failed: "A node's stored address is not usable: correct the node's URL.",
  // nodes behind the plane
  node_unreachable: 'The node did not answer: check that it runs and is reachable from the plane.',
  node_auth_failed: "The node refused the plane's write token: check the node's token.",
  node_bad_reply: (x) =>
    `The node answered something unexpected${typeof x.node_status === 'number' ? ` (HTTP ${x.node_status})` : ''}.`,
};
