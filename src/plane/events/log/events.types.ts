// Types of the event log that other event domains use; apart from the store, which only this domain imports.
import type { NewFrame } from './events.frames.js';

/** A new event row as the intake writes it (JSON columns already serialised). */
export interface EventInsert {
  id: string;
  occurred_at: Date;
  camera_id: string | null;
  node_id: string | null;
  category: 'camera' | 'system';
  detector: string;
  detector_title: string | null;
  severity: number | null;
  confidence: number | null;
  interval: boolean;
  ended_at: Date | null;
  template_id: string | null;
  subject_type: string | null;
  subject_ref: string | null;
  ext_id: string | null;
  list_values: string;
  fields: string;
  payload: string;
  attachments: string;
  /** free text for the search column (to_tsvector 'simple') */
  search_text: string;
  /** verbatim `key:value` lexemes of template fields */
  search_tokens: string[];
  /** coalescing key, last repeat and plane-side closing time (templates: coalesce, interval_timeout_secs) */
  coalesce_key?: string | null;
  last_seen_at?: Date | null;
  close_by?: Date | null;
}

/**
 * A new event as its writer hands it to the log: the row to insert and the frame that the log
 * publishes once the row is committed, at the position it drew.
 */
export interface NewEvent {
  row: EventInsert;
  frame: NewFrame;
}

/** A camera an event names, as intake finds it: the organisation's camera, with its node (names for frames). */
export interface EventCamera {
  id: string;
  node_id: string;
  name: string;
  node_name: string;
}
