import type { WordTable } from './error-words.shared.js';

/**
 * Sentences for the catalogue's 400 codes of the inventory, audit, feed, viewing, node and
 * settings routes: what was wrong with what was typed, and what is accepted instead.
 */
export const inputWords: WordTable = {
  bad_request: 'The plane refused the request as invalid.',
  unknown_field: 'The request holds a field the plane does not know.',
  bad_text: 'A text holds characters that cannot be stored.',
  json_too_deep: 'What was sent is nested too deeply.',
  query_too_long: 'The search text is too long.',
  bad_cursor: 'The page position is no longer valid: reload the list.',
  bad_limit: 'The number of rows asked for is out of range.',
  bad_org: 'The organisation is not valid.',
  unknown_org: 'No such organisation.',
  // people, nodes, cameras, tags, tokens
  bad_name: 'The name is not valid: use 1 to 128 characters.',
  reserved_name: 'That name is reserved: choose another.',
  bad_login: 'The login is not valid: use 1 to 128 letters, digits or . _ @ + - (no spaces).',
  bad_password: 'The password is not accepted: use 8 to 1,024 characters.',
  bad_role: 'The role is not valid.',
  bad_url: 'The address is not a valid http(s) URL.',
  bad_source_url:
    'The camera source is not a valid address (rtsp, rtmp or http, with or without TLS), or it points to a refused network.',
  bad_token: 'The token or secret is not valid.',
  bad_limit_value: 'A limit must be a whole number of 0 or more, or empty for no limit.',
  bad_rate_limit: 'The rate limit must be a positive whole number, or empty for the default.',
  unknown_node: 'No such node.',
  unknown_tag: 'One of the tags does not exist (any more).',
  unknown_camera: 'One of the cameras does not exist (any more).',
  bad_recording: 'The recording settings are not valid (on/off and retention days).',
  bad_events: 'The batch of events is empty or too large.',
  // audit
  bad_audit_cursor: 'The audit page position is no longer valid: reload the list.',
  bad_audit_range: '"From" is after "to".',
  audit_search_must_be_2_to_128_chars: 'Search for 2 to 128 characters.',
  audit_search_requires_explicit_range: 'A search needs a "from" date: it looks through at most 31 days.',
  audit_search_range_max_31_days: 'A search looks through at most 31 days: narrow the dates.',
  bad_audit_action: 'The action filter is not valid.',
  bad_audit_object_type: 'The object type filter is not valid.',
  // feed, purge, navigation and reconcile
  bad_time_range: 'The time range is not valid: "from" must be before "to".',
  bad_detector: 'The detector is not valid.',
  bad_severity_min: 'The minimum severity is not valid.',
  bad_event_ids: 'The list of events is not valid.',
  bad_as_of: 'The "as of" time is not valid.',
  event_purge_selection_too_large: 'The selection to purge is too large: narrow it.',
  bad_last_event_id: 'The stream position is no longer valid: reload the feed.',
  bad_direction: 'The direction must be newer or older.',
  bad_excluded_detectors: 'The list of excluded detectors is not valid.',
  bad_anchor: 'The event to start from is not valid.',
  bad_camera: 'The camera is not valid.',
  event_reconcile_too_many_candidates: 'Too many events to check at once.',
  event_reconcile_cursor_not_allowed: 'A page position cannot be used when checking events.',
  event_reconcile_span_too_wide: 'The events to check span too long a time.',
  bad_event_cursor: 'The feed position is no longer valid: reload the feed.',
  bad_event_range: 'The date range is not valid: "from" must be before "to".',
  bad_severity: 'The severity is not valid.',
  bad_severity_range: 'The severity range is not valid: the minimum is above the maximum.',
  bad_category: 'The category is not valid.',
  event_search_too_short: 'The search text is too short.',
  not_interval: 'This event is instantaneous: it has nothing to close.',
  bad_ended_at: 'The end time is not valid.',
  'ended_at is before occurred_at': 'The end time is before the event began.',
  'ended_at is in the future': 'The end time is in the future.',
  // viewing a camera
  bad_profile: 'The video quality asked for is not valid.',
  bad_intent: 'The kind of viewing is not valid (live or playback).',
  bad_range: 'The playback range is not valid.',
  // exports (docs/exports.md)
  no_recording: 'Nothing is recorded for this camera in that range.',
  export_failed: 'The node could not make the export file. Try again, or choose a shorter range.',
  export_too_long: (x) =>
    typeof x.max_secs === 'number'
      ? `An export may be at most ${exportLimit(x.max_secs)} long: choose a shorter range.`
      : 'The export is too long: choose a shorter range.',
  // per-node routes and the plane's log
  node_rejected: 'The node refused the change as invalid.',
  node_write_token_required: "Changing the node's credentials needs its new write token.",
  log_filter_too_long: 'A log filter is longer than 128 characters.',
  bad_level: 'The log level must be debug, info, warn or error.',
  bad_epoch: 'That configuration version does not exist.',
  bad_after: 'The log position is not valid: reload the log.',
  // control-plane settings
  no_settings_supplied: 'Nothing to save: change a setting first.',
  dvr_export_max_secs_out_of_range: 'The longest export is out of range: use between 60 s and 24 h (86,400 s).',
  invalid_public_url: 'The public address must be an http or https URL.',
  destructive_volume_retention_acknowledgement_required:
    'This retention change deletes stored evidence: tick the acknowledgement to confirm it.',
  // a user's own preferences (the profile page)
  bad_timezone: "The time zone is not known: choose one from the list, or the browser's own.",
  bad_clock: 'The clock must be 24-hour or 12-hour.',
  bad_views: 'The saved views are not valid: at most 32.',
  bad_layout: 'The grid layout must be 1, 2x2, 3x3, 4x4 or automatic.',
  duplicate_view_name: 'Two saved views have the same name: give each its own.',
  evidence_dir_refused: (x) =>
    `The plane may not use this folder for evidence${typeof x.reason === 'string' && x.reason ? `: ${x.reason.replace(/[.\s]+$/, '')}` : ''}.`,
  // notification rules and channels (docs/notifications.md)
  bad_match: "The rule's conditions are not valid (detectors, severity 0 to 4, cameras, tags, categories, open only).",
  bad_schedule:
    'The schedule is not valid: a time zone and windows of days 1 (Monday) to 7 with times "HH:MM", "from" not equal to "to".',
  bad_cooldown: 'The cooldown must be a whole number of seconds from 0 to 86,400.',
  bad_channel_ids: 'Choose 1 to 8 channels for the rule.',
  unknown_channel: 'One of the channels does not exist (any more).',
  bad_channel_kind: 'The channel kind must be webhook, e-mail or MQTT, and cannot change once saved.',
  bad_channel_settings:
    'The channel settings are not valid (webhook secret and headers, 1 to 32 e-mail addresses, MQTT topic and QoS 1).',
  target_refused:
    'The address points to a link-local or cloud metadata network, which the plane refuses unless private targets are allowed.',
  delivery_not_dead: 'Only a dead delivery can be retried: this one is still being sent or was sent.',
};

/** `dvr_export_max_secs` in words: whole minutes or hours when it is some, else seconds. */
function exportLimit(secs: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (secs % 3600 === 0) return unit(secs / 3600, 'hour');
  if (secs % 60 === 0) return unit(secs / 60, 'minute');
  return unit(secs, 'second');
}
