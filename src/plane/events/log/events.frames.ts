import { iso } from '../../../common/time.js';

/**
 * Live frames of the event stream (document 2, live stream). A frame is a JSON summary of one
 * event; one that would not fit the 8 KiB notification bound carries only its keys and
 * `reconcile_required: true` (the row is complete in the database).
 */
export interface EventFrame {
  seq: number;
  id: string;
  occurred_at: string;
  ended_at: string | null;
  org_id: string;
  camera_id: string | null;
  camera_name: string | null;
  node_id: string | null;
  node_name: string | null;
  detector: string;
  detector_title: unknown;
  category: string;
  severity: number | null;
  template_id: string | null;
  interval?: boolean;
  confidence: number | null;
  subject_type: string | null;
  subject_ref: string | null;
  ext_id: string | null;
  list_values: unknown[];
  starred: boolean;
  // Document 2 lists `starred, updated, deleted, reconcile_required (absent when false)`: the
  // parenthesis belongs to the last field, as `interval (only in ...)` does to its own, so
  // `updated` and `deleted` are always sent and only `reconcile_required` is left out when false.
  updated: boolean;
  deleted: boolean;
  reconcile_required?: true;
}

/** A new event's frame as its writer builds it with the row: all but the stream position, which the log draws. */
export type NewFrame = Omit<EventFrame, 'seq'>;

/** The frame of a new event at the position the log drew for it (`seq` first, as in every frame). */
export function positioned(frame: NewFrame, seq: number): EventFrame {
  return { seq, ...frame };
}

export const FRAME_BOUND_BYTES = 8 * 1024;
// What one NOTIFY may carry (PostgreSQL refuses payloads of 8000 bytes and more).
export const NOTIFY_BOUND_BYTES = 7900;

// The JSON of a frame, made once: the bound check, the notice and every stream that sends it share it.
const encoded = new WeakMap<EventFrame, string>();

/** The frame's JSON (encoded once per frame object; frames are never changed once made). */
export function frameJson(f: EventFrame): string {
  let text = encoded.get(f);
  if (text === undefined) {
    text = JSON.stringify(f);
    encoded.set(f, text);
  }
  return text;
}

// A frame's JSON without its free texts (keys, ids, times, numbers, flags) takes between these.
const FRAME_FIXED_MIN = 400;
const FRAME_FIXED_MAX = 700;
// JSON.stringify writes one UTF-16 unit as at most 6 bytes (\u001f, or 3 bytes of UTF-8).
const UNIT_MAX = 6;

/** At least the frame's JSON size in bytes, from its free texts alone; null when it must be encoded to know. */
function frameBytesAtMost(f: EventFrame): number | null {
  if (f.list_values.length) return null;
  let units = 0;
  for (const t of [f.camera_name, f.node_name, f.detector, f.subject_type, f.subject_ref, f.ext_id])
    if (t !== null) units += t.length;
  const title = f.detector_title;
  if (typeof title === 'string') units += title.length;
  else if (title && typeof title === 'object' && !Array.isArray(title)) {
    for (const [k, v] of Object.entries(title)) {
      if (typeof v !== 'string') return null;
      units += k.length + v.length + 2;
    }
  } else if (title !== null && title !== undefined) return null;
  return FRAME_FIXED_MAX + UNIT_MAX * units;
}

/** The frame as sent, bounded: too large a frame keeps its identity and asks for a re-read. */
export function boundFrame(f: EventFrame): EventFrame {
  // Most frames are far below the bound: they are not encoded just to learn that.
  const most = frameBytesAtMost(f);
  if (most !== null && most <= FRAME_BOUND_BYTES) return f;
  const json = frameJson(f);
  // Characters never outnumber bytes: only a long frame needs the exact byte count.
  if (json.length * 3 <= FRAME_BOUND_BYTES || Buffer.byteLength(json) <= FRAME_BOUND_BYTES) return f;
  return {
    seq: f.seq,
    id: f.id,
    occurred_at: f.occurred_at,
    ended_at: f.ended_at,
    org_id: f.org_id,
    camera_id: f.camera_id,
    camera_name: null,
    node_id: f.node_id,
    node_name: null,
    detector: f.detector.slice(0, 256),
    detector_title: null,
    category: f.category,
    severity: f.severity,
    template_id: f.template_id,
    confidence: f.confidence,
    subject_type: null,
    subject_ref: null,
    ext_id: null,
    list_values: [],
    starred: f.starred,
    updated: f.updated,
    deleted: f.deleted,
    reconcile_required: true,
  };
}

/**
 * The notice of a committed batch: the seq range it drew (other batches' positions may lie
 * inside it), with the frames inline when they fit the notification bound; otherwise
 * subscribers read the range from the table. A NOTIFY payload on channel argus_events is a
 * JSON array of such notices (see EventNotifier); never one notification per row.
 */
export interface BatchNotice {
  from: number;
  to: number;
  frames?: EventFrame[];
  /** without frames: the batch's own positions as [first, last] runs, so listeners read just those rows */
  seqs?: Array<[number, number]>;
  /** set by a purge: the purge day in force from this notice on */
  purge_day?: string | null;
  /** the plane process that already gave these frames to its own ring (it skips the notice) */
  origin?: string;
}

export function batchNotice(
  from: number,
  to: number,
  frames: EventFrame[],
  extra: { purge_day?: string | null } = {},
): string {
  const tail = extra.purge_day !== undefined ? `,"purge_day":${JSON.stringify(extra.purge_day)}}` : '}';
  const head = `{"from":${from},"to":${to},"frames":[`;
  // Lengths first (each frame's JSON is made once and kept): a batch that cannot fit is not
  // encoded only to be thrown away.
  let size = head.length + tail.length + 1 + frames.length * (FRAME_FIXED_MIN + 1);
  if (size <= NOTIFY_BOUND_BYTES) size = head.length + tail.length + 1;
  for (let i = 0; i < frames.length && size <= NOTIFY_BOUND_BYTES; i++)
    size += frameJson(boundFrame(frames[i]!)).length + 1;
  if (size <= NOTIFY_BOUND_BYTES) {
    const full = `${head}${frames.map((f) => frameJson(boundFrame(f))).join(',')}]${tail}`;
    if (Buffer.byteLength(full) <= NOTIFY_BOUND_BYTES) return full;
  }
  const seqs: Array<[number, number]> = [];
  for (const s of frames.map((f) => f.seq).sort((a, b) => a - b)) {
    const last = seqs[seqs.length - 1];
    if (last && s === last[1] + 1) last[1] = s;
    else seqs.push([s, s]);
  }
  const withSeqs = JSON.stringify({ from, to, seqs, ...extra } satisfies BatchNotice);
  // Interleaved with many other writers the runs may not fit either: the range alone, and
  // listeners settle it from the table (a gap).
  return Buffer.byteLength(withSeqs) <= NOTIFY_BOUND_BYTES
    ? withSeqs
    : JSON.stringify({ from, to, ...extra } satisfies BatchNotice);
}

/** The frame of a stored row; `updated` frames of a partial change leave out `interval`. */
export function frameOfRow(
  r: {
    seq: number;
    id: string;
    occurred_at: Date | string;
    ended_at: Date | string | null;
    org_id: string;
    camera_id: string | null;
    camera_name: string | null;
    node_id: string | null;
    node_name: string | null;
    detector: string;
    detector_title: unknown;
    category: string;
    severity: number | null;
    template_id: string | null;
    interval: boolean;
    confidence: number | null;
    subject_type: string | null;
    subject_ref: string | null;
    ext_id: string | null;
    list_values: unknown[];
    starred: boolean;
  },
  change: 'created' | 'full' | 'partial',
): EventFrame {
  return {
    seq: Number(r.seq),
    id: r.id,
    occurred_at: iso(r.occurred_at),
    ended_at: r.ended_at === null ? null : iso(r.ended_at),
    org_id: r.org_id,
    camera_id: r.camera_id,
    camera_name: r.camera_name,
    node_id: r.node_id,
    node_name: r.node_name,
    detector: r.detector,
    detector_title: r.detector_title ?? null,
    category: r.category,
    severity: r.severity,
    template_id: r.template_id,
    ...(change === 'partial' ? {} : { interval: r.interval }),
    confidence: r.confidence,
    subject_type: r.subject_type,
    subject_ref: r.subject_ref,
    ext_id: r.ext_id,
    list_values: r.list_values,
    starred: r.starred,
    updated: change !== 'created',
    deleted: false,
  };
}
