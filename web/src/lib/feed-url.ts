/**
 * The feed's filters and search (document 2, GET /api/v1/events) as the page URL holds them, so
 * a link restores the view. Only the feed's own parameters; the cursor is not part of a link.
 */
import { clip } from './text.js';

export interface FeedFilters {
  org?: string;
  from?: string;
  to?: string;
  camera?: string;
  tag?: string;
  detector?: string;
  severity?: string;
  severity_max?: string;
  starred?: boolean;
  open?: boolean;
  category?: string;
  q?: string;
}

const TEXT_KEYS = [
  'org',
  'from',
  'to',
  'camera',
  'tag',
  'detector',
  'severity',
  'severity_max',
  'category',
  'q',
] as const;
const BOOL_KEYS = ['starred', 'open'] as const;

export function filtersFromSearch(search: string): FeedFilters {
  const p = new URLSearchParams(search);
  const f: FeedFilters = {};
  for (const k of TEXT_KEYS) {
    const v = p.get(k);
    if (v !== null && v !== '') f[k] = v;
  }
  for (const k of BOOL_KEYS) if (p.get(k) === 'true') f[k] = true;
  return f;
}

/** The query string of `f` (keys in a fixed order, empty values left out), without the `?`. */
export function searchOfFilters(f: FeedFilters): string {
  const p = new URLSearchParams();
  for (const k of TEXT_KEYS) {
    const v = f[k];
    if (v !== undefined && v !== '') p.set(k, v);
  }
  for (const k of BOOL_KEYS) if (f[k]) p.set(k, 'true');
  return p.toString();
}

/** The severities of document 2, by number: the one list of the console (filters, rows, card). */
export const SEVERITIES = ['debug', 'info', 'warning', 'error', 'critical'] as const;

/** A severity of the feed's vocabulary as a number; `none` and unknown words: null. */
export function severityNumber(s: string | undefined): number | null {
  if (s === undefined) return null;
  const i = (SEVERITIES as readonly string[]).indexOf(s);
  if (i >= 0) return i;
  return /^[0-4]$/.test(s) ? Number(s) : null;
}

/** A severity as a word: the stream sends the number, pages the name; an unknown one is shown as it came. */
export const severityName = (s: unknown): string =>
  typeof s === 'number' ? (SEVERITIES[s] ?? String(s)) : typeof s === 'string' && s ? clip(s, 24) : '—';

/**
 * The CSS class of a severity, the same for a loaded row (the name) and a live one (the number):
 * `sev-0` to `sev-4`, each its own colour (styles.css); an unknown one `sev-none`, uncoloured.
 */
export const severityClass = (s: unknown): string => {
  const n =
    typeof s === 'number' ? (SEVERITIES[s] === undefined ? null : s) : typeof s === 'string' ? severityNumber(s) : null;
  return `sev-${n ?? 'none'}`;
};

/** Whether the view includes debug events (document 2: only when a filter reaches zero). */
export function showsDebug(f: FeedFilters): boolean {
  const low = severityNumber(f.severity),
    high = severityNumber(f.severity_max);
  return low === 0 || (f.severity === undefined && high === 0);
}

/** The fields of a stream frame the client can judge by itself. */
export interface FrameFields {
  camera_id: string | null;
  detector: string;
  category: string;
  severity: number | null;
  starred?: boolean;
  ended_at?: string | null;
  interval?: boolean;
  occurred_at: string;
  org_id: string;
}

/**
 * Whether a live frame belongs to the view: `yes`, `no`, or `unknown` when a filter needs the
 * server (search text, camera tag): then the row is asked for with POST /events/reconcile.
 */
export function frameMatches(f: FeedFilters, e: FrameFields): 'yes' | 'no' | 'unknown' {
  if (f.org && e.org_id !== f.org) return 'no';
  if (f.camera && e.camera_id !== f.camera) return 'no';
  if (f.category && e.category !== f.category) return 'no';
  if (f.detector) {
    const mask = f.detector;
    const detector = typeof e.detector === 'string' ? e.detector : '';
    if (mask.endsWith('*') ? !detector.startsWith(mask.slice(0, -1)) : detector !== mask) return 'no';
  }
  if (f.from && Date.parse(e.occurred_at) < Date.parse(f.from)) return 'no';
  if (f.to && Date.parse(e.occurred_at) >= Date.parse(f.to)) return 'no';
  if (f.severity === 'none') {
    if (e.severity !== null) return 'no';
  } else {
    const low = severityNumber(f.severity),
      high = severityNumber(f.severity_max);
    if (e.severity === 0 && !showsDebug(f)) return 'no';
    if (low !== null && (e.severity === null || e.severity < low)) return 'no';
    if (high !== null && (e.severity === null || e.severity > high)) return 'no';
  }
  if (f.starred && !e.starred) return 'no';
  if (f.open && (e.interval === false || (e.ended_at !== null && e.ended_at !== undefined))) return 'no';
  return f.q || f.tag ? 'unknown' : 'yes';
}
