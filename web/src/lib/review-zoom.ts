/**
 * The review timeline's arithmetic (issue 23), pure so that it is tested on its own: the window
 * shown (start and span, zoomed from 5 minutes to 7 days around a moment, panned by a drag), the
 * chunks of recording read for it, the rounding of a hovered moment for its thumbnail, and event
 * markers clustered when they would overlap.
 */
export const MIN_SPAN_MS = 5 * 60_000;
export const MAX_SPAN_MS = 7 * 86_400_000;
/** The spans the + and - buttons step through. */
export const SPANS_MS = [5, 15, 60, 3 * 60, 6 * 60, 12 * 60, 24 * 60, 3 * 24 * 60, 7 * 24 * 60].map((m) => m * 60_000);

export interface View {
  fromMs: number;
  spanMs: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** A view may look a little past now (the newest moment is not at the very edge): a twentieth, at most half an hour. */
export const FUTURE_MS = (spanMs: number) => Math.min(spanMs / 20, 30 * 60_000);

/** Keeps the span within 5 minutes..7 days and the end at most FUTURE_MS past `nowMs`. */
export function bounded(v: View, nowMs: number): View {
  const spanMs = clamp(v.spanMs, MIN_SPAN_MS, MAX_SPAN_MS);
  const fromMs = Math.min(v.fromMs, nowMs + FUTURE_MS(spanMs) - spanMs);
  return { fromMs: Math.round(fromMs), spanMs: Math.round(spanMs) };
}

/** `factor` < 1 zooms in; the moment at `anchorMs` stays under the pointer. */
export function zoomBy(v: View, factor: number, anchorMs: number, nowMs: number): View {
  const spanMs = clamp(v.spanMs * factor, MIN_SPAN_MS, MAX_SPAN_MS);
  const share = v.spanMs > 0 ? (anchorMs - v.fromMs) / v.spanMs : 0.5;
  return bounded({ fromMs: anchorMs - share * spanMs, spanMs }, nowMs);
}

/** The next span of the buttons' steps: in (-1) or out (+1), centred on `anchorMs`. */
export function zoomStep(v: View, dir: -1 | 1, anchorMs: number, nowMs: number): View {
  const next =
    dir < 0
      ? ([...SPANS_MS].reverse().find((s) => s < v.spanMs - 1) ?? MIN_SPAN_MS)
      : (SPANS_MS.find((s) => s > v.spanMs + 1) ?? MAX_SPAN_MS);
  return bounded({ fromMs: anchorMs - next / 2, spanMs: next }, nowMs);
}

/** A drag of `dx` pixels on a bar `widthPx` wide: the window moves the other way. */
export function panBy(v: View, dx: number, widthPx: number, nowMs: number): View {
  return bounded({ fromMs: v.fromMs - (dx / Math.max(1, widthPx)) * v.spanMs, spanMs: v.spanMs }, nowMs);
}

/** A window of `spanMs` with `atMs` at its middle (a jump to a moment). */
export const centredOn = (atMs: number, spanMs: number, nowMs: number): View =>
  bounded({ fromMs: atMs - spanMs / 2, spanMs }, nowMs);

/** The moment under pixel `x` of a bar `widthPx` wide, and back. */
export const momentAtX = (v: View, x: number, widthPx: number) => v.fromMs + (x / Math.max(1, widthPx)) * v.spanMs;
export const xOfMoment = (v: View, ms: number, widthPx: number) => ((ms - v.fromMs) / v.spanMs) * widthPx;

/** Steps (s) a hovered moment is rounded to, so that the hover over a stretch asks the same pictures. */
const NICE_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600];

/** The thumbnail step of a view: about 4 pixels' worth of time, rounded up to a whole step. */
export function thumbStepS(spanMs: number, widthPx: number): number {
  const raw = (spanMs / 1000 / Math.max(1, widthPx)) * 4;
  return NICE_S.find((s) => s >= raw) ?? NICE_S[NICE_S.length - 1]!;
}

/** `atMs` rounded down to the view's thumbnail step, in epoch seconds. */
export const thumbSecond = (atMs: number, stepS: number) => Math.floor(atMs / 1000 / stepS) * stepS;

/**
 * The chunks of recording read for a view: aligned windows of one hour, six hours or a day
 * (after the span), so that panning reads a chunk once and zooming in reuses what zooming out
 * read. A day is the most one playback playlist covers (the node's 24 h bound).
 */
export function chunksOf(v: View, nowMs: number): Array<{ from: number; duration: number }> {
  const size = v.spanMs <= 3600_000 ? 3600 : v.spanMs <= 6 * 3600_000 ? 6 * 3600 : 86_400;
  const endS = Math.min(v.fromMs + v.spanMs, nowMs) / 1000;
  const out: Array<{ from: number; duration: number }> = [];
  for (let f = Math.floor(v.fromMs / 1000 / size) * size; f < endS; f += size) out.push({ from: f, duration: size });
  return out;
}

/**
 * The recorded range the player plays around a moment: the hour holding it and the hour before,
 * so a jump lands with a little of the past to step back into, and an hour-aligned key lets a
 * second jump into the same stretch reuse the playlist.
 */
export function playRangeAround(atMs: number): { from: number; duration: number } {
  const hour = Math.floor(atMs / 3600_000) * 3600;
  return { from: hour - 3600, duration: 7200 };
}

export interface Marker {
  id: string;
  atMs: number;
  name: string;
}
export interface Cluster {
  atMs: number;
  markers: Marker[];
}

/**
 * Markers closer than `minPx` on the bar joined into clusters (a count instead of a blob of
 * overlapping dots); a cluster sits at its first marker's moment. Markers outside the view are left out.
 */
export function clusterMarkers(markers: Marker[], v: View, widthPx: number, minPx = 10): Cluster[] {
  const inView = markers
    .filter((m) => m.atMs >= v.fromMs && m.atMs <= v.fromMs + v.spanMs)
    .sort((a, b) => a.atMs - b.atMs);
  const out: Cluster[] = [];
  let lastX = -Infinity;
  for (const m of inView) {
    const x = xOfMoment(v, m.atMs, widthPx);
    const last = out[out.length - 1];
    if (last && x - lastX < minPx) last.markers.push(m);
    else {
      out.push({ atMs: m.atMs, markers: [m] });
      lastX = x;
    }
  }
  return out;
}
