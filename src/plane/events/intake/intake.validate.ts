import { findUnsafeText, textProblem } from '../../http/safe-text.js';
import { parseTimestamp } from '../../../common/time.js';

/**
 * One uploaded event item (document 4 §4), checked on its own: a bad item is reported in its
 * result and never fails the batch. Codes of item results:
 */
export const ITEM_ERRORS = [
  'bad_item',
  'unknown_field',
  'bad_detector',
  'bad_occurred_at',
  'occurred_at_out_of_range',
  'bad_camera_id',
  'unknown_camera',
  'bad_severity',
  'bad_confidence',
  'bad_interval',
  'bad_ended_at',
  'bad_subject',
  'bad_ext_id',
  'bad_detector_title',
  'bad_payload',
  'payload_too_large',
  'bad_attachments',
  'unknown_attachment',
  'attachment_camera_mismatch',
] as const;
export type ItemError = (typeof ITEM_ERRORS)[number];

export const LIMITS = {
  detector: 256,
  extId: 128,
  subjectType: 64,
  subjectRef: 256,
  title: 256,
  titleLangs: 32,
  payloadBytes: 64 * 1024,
  attachments: 16,
  /** accepted occurred_at: at most this far in the past ... */
  pastMs: 30 * 86_400_000,
  /** ... and this far in the future (clock skew of a module) */
  futureMs: 10 * 60_000,
} as const;

export const SEVERITIES = ['debug', 'info', 'warning', 'error', 'critical'] as const;

export interface IntakeItem {
  detector: string;
  occurredAt: number;
  cameraId: string | null;
  severity: number | null;
  confidence: number | null;
  interval: boolean;
  endedAt: number | null;
  subjectType: string | null;
  subjectRef: string | null;
  extId: string | null;
  detectorTitle: string | Record<string, string> | null;
  payloadJson: string;
  attachments: string[];
}

const KEYS = new Set([
  'detector',
  'occurred_at',
  'camera_id',
  'severity',
  'confidence',
  'interval',
  'ended_at',
  'subject_type',
  'subject_ref',
  'ext_id',
  'detector_title',
  'payload',
  'attachments',
]);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Text fields: no control characters.
// eslint-disable-next-line no-control-regex -- the pattern exists to refuse control characters
const CTRL_RE = /[\u0000-\u001f\u007f]/;

class Bad {
  constructor(readonly code: ItemError) {}
}
const bad = (code: ItemError): never => {
  throw new Bad(code);
};

function text(v: unknown, max: number, code: ItemError, nullable = true): string | null {
  if (v === undefined || v === null) return nullable ? null : bad(code);
  if (typeof v !== 'string' || !v.length || v.length > max || CTRL_RE.test(v) || textProblem(v)) return bad(code);
  return v;
}

function time(v: unknown, code: ItemError): number {
  // RFC 3339 with an explicit offset (a time without zone would be read in the plane's zone), an
  // existing calendar date: the one timestamp rule of every route (issue 25, finding 7).
  const at = typeof v === 'string' ? parseTimestamp(v) : null;
  return at ? at.getTime() : bad(code);
}

function severity(v: unknown): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 4) return v;
  const i = typeof v === 'string' ? SEVERITIES.indexOf(v.toLowerCase() as (typeof SEVERITIES)[number]) : -1;
  return i >= 0 ? i : bad('bad_severity');
}

function title(v: unknown): string | Record<string, string> | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return text(v, LIMITS.title, 'bad_detector_title');
  if (typeof v !== 'object' || Array.isArray(v)) return bad('bad_detector_title');
  const entries = Object.entries(v as Record<string, unknown>);
  if (!entries.length || entries.length > LIMITS.titleLangs) return bad('bad_detector_title');
  for (const [lang, t] of entries) {
    if (!/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$/.test(lang)) bad('bad_detector_title');
    text(t, LIMITS.title, 'bad_detector_title', false);
  }
  return v as Record<string, string>;
}

/** Checks one item against the rules that need no database; `now` bounds the times. */
export function validateItem(raw: unknown, now: number): IntakeItem | { error: ItemError } {
  try {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { error: 'bad_item' };
    const o = raw as Record<string, unknown>;
    for (const k in o) if (!KEYS.has(k)) return { error: 'unknown_field' };
    const detector = text(o.detector, LIMITS.detector, 'bad_detector', false)!;
    const occurredAt = time(o.occurred_at, 'bad_occurred_at');
    if (occurredAt < now - LIMITS.pastMs || occurredAt > now + LIMITS.futureMs) bad('occurred_at_out_of_range');
    let cameraId: string | null = null;
    if (o.camera_id !== undefined && o.camera_id !== null) {
      if (typeof o.camera_id !== 'string' || !UUID_RE.test(o.camera_id)) bad('bad_camera_id');
      cameraId = (o.camera_id as string).toLowerCase();
    }
    let confidence: number | null = null;
    if (o.confidence !== undefined && o.confidence !== null) {
      if (typeof o.confidence !== 'number' || !Number.isFinite(o.confidence) || o.confidence < 0 || o.confidence > 100)
        bad('bad_confidence');
      confidence = o.confidence as number;
    }
    if (o.interval !== undefined && o.interval !== null && typeof o.interval !== 'boolean') bad('bad_interval');
    const interval = o.interval === true;
    let endedAt: number | null = null;
    if (o.ended_at !== undefined && o.ended_at !== null) {
      if (!interval) bad('bad_ended_at');
      endedAt = time(o.ended_at, 'bad_ended_at');
      if (endedAt < occurredAt || endedAt > now + LIMITS.futureMs) bad('bad_ended_at');
    }
    const subjectType = text(o.subject_type, LIMITS.subjectType, 'bad_subject');
    const subjectRef = text(o.subject_ref, LIMITS.subjectRef, 'bad_subject');
    const extId = text(o.ext_id, LIMITS.extId, 'bad_ext_id');
    const detectorTitle = title(o.detector_title);
    let payloadJson = '{}';
    if (o.payload !== undefined && o.payload !== null) {
      if (typeof o.payload !== 'object' || Array.isArray(o.payload)) bad('bad_payload');
      // Text jsonb refuses (U+0000, a lone surrogate) or nesting too deep to serialise: this item only.
      if (findUnsafeText(o.payload)) bad('bad_payload');
      payloadJson = JSON.stringify(o.payload);
      if (Buffer.byteLength(payloadJson) > LIMITS.payloadBytes) bad('payload_too_large');
      // PostgreSQL's jsonb refuses \u0000 in strings.
      if (payloadJson.includes('\\u0000')) bad('bad_payload');
    }
    let attachments: string[] = [];
    if (o.attachments !== undefined && o.attachments !== null) {
      const a = o.attachments;
      if (
        !Array.isArray(a) ||
        a.length > LIMITS.attachments ||
        a.some((r) => typeof r !== 'string' || !UUID_RE.test(r))
      )
        bad('bad_attachments');
      attachments = [...new Set((a as string[]).map((r) => r.toLowerCase()))];
    }
    return {
      detector,
      occurredAt,
      cameraId,
      severity: severity(o.severity),
      confidence,
      interval,
      endedAt,
      subjectType,
      subjectRef,
      extId,
      detectorTitle,
      payloadJson,
      attachments,
    };
  } catch (err) {
    if (err instanceof Bad) return { error: err.code };
    throw err;
  }
}
