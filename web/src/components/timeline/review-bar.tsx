import { useEffect, useRef, useState } from 'react';
import { useTimeDisplay } from '../../hooks/use-time.js';
import type { Range } from '../../lib/recording.js';
import { scaleLabel, wallClock } from '../../lib/review-time.js';
import {
  centredOn,
  clusterMarkers,
  momentAtX,
  panBy,
  thumbSecond,
  thumbStepS,
  zoomBy,
  type Marker,
  type View,
} from '../../lib/review-zoom.js';
import { HoverThumb } from './hover-thumb.js';
import { keyMove } from './keys.js';

/** Pixels a pointer moves before a press is a drag (a pan) rather than a click (a seek). */
const DRAG_PX = 4;
/** The hover thumbnail follows the pointer at most this often. */
const HOVER_MS = 150;

/**
 * The review bar (issue 23): the view's recorded ranges over a hatched background (the gaps),
 * the playhead, the events as markers clustered when they would overlap, and a thumbnail above
 * the hovered moment. A drag pans, a click seeks, the wheel and a pinch zoom around the pointer;
 * the slider inside is focusable and moved by the keyboard (keys.ts), + and - zoom.
 */
export function ReviewBar(props: {
  view: View;
  nowMs: number;
  onView(update: (v: View) => View): void;
  ranges: Range[];
  playheadMs: number | null;
  markers: Marker[];
  onSeek(atMs: number): void;
  thumb(epochSecs: number): string | null;
}) {
  const t = useTimeDisplay();
  const { view, nowMs, onView } = props;
  const bar = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(800);
  const [hover, setHover] = useState<{ x: number; atMs: number } | null>(null);
  const lastHover = useRef(0);
  const trailing = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (trailing.current) clearTimeout(trailing.current);
    },
    [],
  );
  const pointers = useRef(new Map<number, number>());
  const gesture = useRef<{ x: number; view: View; dist: number; dragged: boolean } | null>(null);
  const dragged = useRef(false);

  useEffect(() => {
    const el = bar.current;
    if (!el) return;
    const measure = () => setWidth(el.getBoundingClientRect().width || 800);
    measure();
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    ro?.observe(el);
    // React's wheel listener is passive; the page must not scroll while the bar zooms.
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      const box = el.getBoundingClientRect();
      const x = e.clientX - box.left;
      onView((v) => zoomBy(v, Math.exp(e.deltaY * 0.0015), momentAtX(v, x, box.width), nowMs));
    };
    el.addEventListener('wheel', wheel, { passive: false });
    return () => {
      ro?.disconnect();
      el.removeEventListener('wheel', wheel);
    };
  }, [onView, nowMs]);

  const xOf = (e: { clientX: number }) => e.clientX - (bar.current?.getBoundingClientRect().left ?? 0);
  const pct = (ms: number) => `${Math.min(100, Math.max(0, ((ms - view.fromMs) / view.spanMs) * 100))}%`;
  const endMs = Math.min(view.fromMs + view.spanMs, nowMs);
  const position = props.playheadMs ?? props.ranges[props.ranges.length - 1]?.toMs ?? endMs;
  const clusters = clusterMarkers(props.markers, view, width);
  const step = thumbStepS(view.spanMs, width);
  const recordedAt = (ms: number) => props.ranges.some((r) => ms >= r.fromMs && ms < r.toMs);

  const onPointerDown = (e: React.PointerEvent) => {
    pointers.current.set(e.pointerId, e.clientX);
    (e.currentTarget as Element).setPointerCapture?.(e.pointerId);
    const xs = [...pointers.current.values()];
    gesture.current = {
      x: xOf(e),
      view,
      dist: xs.length === 2 ? Math.abs(xs[0]! - xs[1]!) : 0,
      dragged: xs.length === 2,
    };
  };
  const onPointerMove = (e: React.PointerEvent) => {
    const x = xOf(e);
    if (pointers.current.has(e.pointerId)) pointers.current.set(e.pointerId, e.clientX);
    const g = gesture.current;
    if (g && pointers.current.size === 2) {
      // Pinch: the span scales with the distance between the fingers, around their middle.
      const xs = [...pointers.current.values()];
      const dist = Math.abs(xs[0]! - xs[1]!);
      const mid = (xs[0]! + xs[1]!) / 2 - (bar.current?.getBoundingClientRect().left ?? 0);
      if (g.dist > 0 && dist > 0) onView(() => zoomBy(g.view, g.dist / dist, momentAtX(g.view, mid, width), nowMs));
      return;
    }
    if (g && pointers.current.size === 1) {
      if (!g.dragged && Math.abs(x - g.x) < DRAG_PX) return;
      g.dragged = true;
      onView(() => panBy(g.view, x - g.x, width, nowMs));
      setHover(null);
      return;
    }
    // At most every HOVER_MS, and where the pointer came to rest (a trailing update).
    const next = { x, atMs: momentAtX(view, x, width) };
    const wait = HOVER_MS - (performance.now() - lastHover.current);
    if (trailing.current) clearTimeout(trailing.current);
    trailing.current = null;
    if (wait <= 0) {
      lastHover.current = performance.now();
      setHover(next);
    } else
      trailing.current = setTimeout(() => {
        trailing.current = null;
        lastHover.current = performance.now();
        setHover(next);
      }, wait);
  };
  const onPointerUp = (e: React.PointerEvent) => {
    pointers.current.delete(e.pointerId);
    if (pointers.current.size === 0) {
      dragged.current = gesture.current?.dragged ?? false;
      gesture.current = null;
    }
  };
  // The moment rounded to the step, unless that falls outside the recording (the edge of a range):
  // then the second itself.
  const hoverSecond = (atMs: number) => {
    const rounded = thumbSecond(atMs, step);
    if (recordedAt(rounded * 1000)) return rounded;
    return recordedAt(Math.floor(atMs / 1000) * 1000) ? Math.floor(atMs / 1000) : Math.ceil(atMs / 1000);
  };
  const hoverSrc = hover && recordedAt(hover.atMs) ? props.thumb(hoverSecond(hover.atMs)) : null;

  return (
    <div className="review-bar-wrap">
      <div
        ref={bar}
        className="bar review-bar"
        data-testid="review-bar"
        data-span-ms={view.spanMs}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onPointerLeave={() => {
          if (trailing.current) clearTimeout(trailing.current);
          trailing.current = null;
          setHover(null);
        }}
        onClick={(e) => {
          // The end of a drag is not a click on the moment under it.
          if (dragged.current) {
            dragged.current = false;
            return;
          }
          const box = e.currentTarget.getBoundingClientRect();
          props.onSeek(momentAtX(view, e.clientX - box.left, box.width || width));
        }}
      >
        {/* The slider holds the drawing; the markers are its siblings, as a control may not hold controls. */}
        <div
          className="bar-slider"
          role="slider"
          tabIndex={0}
          aria-label="Recording position"
          aria-valuemin={Math.floor(view.fromMs / 1000)}
          aria-valuemax={Math.floor(endMs / 1000)}
          aria-valuenow={Math.floor(position / 1000)}
          aria-valuetext={wallClock(position, t)}
          onKeyDown={(e) => {
            if (e.key === '+' || e.key === '=' || e.key === '-') {
              e.preventDefault();
              onView((v) => zoomBy(v, e.key === '-' ? 2 : 0.5, position, nowMs));
              return;
            }
            const to = keyMove(e.key, e.shiftKey, position, view.fromMs, endMs, view.spanMs / 1000);
            if (to === null) return;
            e.preventDefault();
            props.onSeek(to);
          }}
        >
          {props.ranges.map((r) => (
            <span
              key={r.fromMs}
              className="range"
              style={{ left: pct(r.fromMs), width: `calc(${pct(r.toMs)} - ${pct(r.fromMs)})` }}
            />
          ))}
          {props.playheadMs !== null && <span className="playhead" style={{ left: pct(props.playheadMs) }} />}
        </div>
        {clusters.map((c) => {
          const one = c.markers.length === 1;
          const last = c.markers[c.markers.length - 1]!;
          const name = one
            ? `Play from ${c.markers[0]!.name}`
            : `${c.markers.length} events from ${wallClock(c.atMs, t)} to ${wallClock(last.atMs, t)}: zoom in`;
          return (
            <button
              key={c.markers[0]!.id}
              type="button"
              className={one ? 'marker' : 'marker cluster'}
              aria-label={name}
              title={name}
              style={{ left: pct(c.atMs) }}
              onPointerDown={(e) => e.stopPropagation()}
              onClick={(e) => {
                e.stopPropagation();
                if (one) props.onSeek(c.atMs - 10_000);
                else onView(() => centredOn((c.atMs + last.atMs) / 2, (last.atMs - c.atMs) * 4, nowMs));
              }}
            >
              {one ? '' : c.markers.length}
            </button>
          );
        })}
        {hover && (
          <div className="hover-thumb" style={{ left: `${Math.min(Math.max(hover.x, 80), width - 80)}px` }}>
            {hoverSrc ? (
              <HoverThumb src={hoverSrc} alt={`Recording at ${wallClock(hover.atMs, t)}`} />
            ) : (
              <span className="no-rec">No recording</span>
            )}
            <span>{scaleLabel(hover.atMs, 0, t)}</span>
          </div>
        )}
      </div>
      <div className="bar-scale" aria-hidden="true">
        {[0, 0.25, 0.5, 0.75, 1].map((f) => (
          <span key={f}>{scaleLabel(view.fromMs + f * view.spanMs, view.spanMs, t)}</span>
        ))}
      </div>
    </div>
  );
}
