import { frameMatches, type FeedFilters, type FrameFields } from './feed-url.js';

/**
 * A feed row as the list shows it (the feed's row and the stream's summary share these fields).
 * `detector_title` is a string or an object of localisations (document 2): render it with `eventTitle`.
 */
export interface FeedRow extends FrameFields {
  id: string;
  camera_name?: string | null;
  node_name?: string | null;
  detector_title?: unknown;
  subject_ref?: string | null;
  [k: string]: unknown;
}

/** A stream frame (document 2, live stream): the summary plus what happened to it. */
export interface StreamFrame extends FeedRow {
  seq?: number;
  updated?: boolean;
  deleted?: boolean;
  reconcile_required?: boolean;
}

export interface Key {
  id: string;
  occurred_at: string;
}

/** The rows in feed order: newest first, then by id (the feed's keyset order). */
function before(a: Key, b: Key): boolean {
  const ta = Date.parse(a.occurred_at),
    tb = Date.parse(b.occurred_at);
  return ta !== tb ? ta > tb : a.id > b.id;
}

/** `rows` with `row` put in its place; a row with the same id is replaced (a page and the stream may both bring it). */
export function upsert(rows: FeedRow[], row: FeedRow): FeedRow[] {
  const out = rows.filter((r) => r.id !== row.id);
  let i = 0;
  while (i < out.length && before(out[i]!, row)) i++;
  out.splice(i, 0, row);
  return out;
}

/**
 * A page merged into the rows: one pass over both sorted lists (a page of 500 into 10,000 rows
 * is linear, not a splice per row); a row of the page replaces the shown one with its id.
 */
export function mergePage(rows: FeedRow[], page: FeedRow[]): FeedRow[] {
  if (!page.length) return rows;
  const incoming = [...page].sort((a, b) => (before(a, b) ? -1 : before(b, a) ? 1 : 0));
  const ids = new Set(incoming.map((r) => r.id));
  const kept = rows.filter((r) => !ids.has(r.id));
  const out: FeedRow[] = [];
  let i = 0,
    j = 0;
  while (i < kept.length || j < incoming.length) {
    if (j >= incoming.length || (i < kept.length && before(kept[i]!, incoming[j]!))) out.push(kept[i++]!);
    else out.push(incoming[j++]!);
  }
  return out;
}

export interface FrameOutcome {
  rows: FeedRow[];
  reconcile: Key | null;
}

/**
 * One live frame applied to the rows shown (document 2): a tombstone removes its row; `updated`
 * changes a row shown (and a row that now matches is asked for); a frame whose fields did not
 * fit (`reconcile_required`) is never shown as it is but asked for; a new event is inserted when
 * it matches the filters, asked for when only the server can tell (search, tag), else ignored.
 * Debug frames stay hidden unless the view chose debug.
 */
export function applyFrame(rows: FeedRow[], frame: StreamFrame, filters: FeedFilters): FrameOutcome {
  const key = { id: frame.id, occurred_at: frame.occurred_at };
  if (frame.deleted) return { rows: rows.filter((r) => r.id !== frame.id), reconcile: null };
  const shown = rows.find((r) => r.id === frame.id);
  if (frame.reconcile_required) return { rows, reconcile: key };
  const match = frameMatches(filters, frame);
  if (frame.updated) {
    if (shown) {
      if (match === 'no') return { rows: rows.filter((r) => r.id !== frame.id), reconcile: null };
      const { updated: _u, deleted: _d, seq: _s, ...fields } = frame;
      return {
        rows: rows.map((r) => (r.id === frame.id ? { ...r, ...fields } : r)),
        reconcile: match === 'unknown' ? key : null,
      };
    }
    return { rows, reconcile: match === 'no' ? null : key };
  }
  if (match === 'no') return { rows, reconcile: null };
  if (match === 'unknown') return { rows, reconcile: key };
  const { updated: _u, deleted: _d, seq: _s, ...fields } = frame;
  return { rows: upsert(rows, fields as FeedRow), reconcile: null };
}
