import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useCameraEvents } from '../hooks/use-events.js';
import { thumbUrl, usePlayRange, useRecordedChunks } from '../hooks/use-review.js';
import { momentOf, positionOf } from '../lib/recording.js';
import { text } from '../lib/text.js';
import { wallClock } from '../lib/review-time.js';
import { useTimeDisplay } from '../hooks/use-time.js';
import { centredOn, chunksOf, playRangeAround, zoomStep, type View } from '../lib/review-zoom.js';
import { Player } from './player.js';
import { ReviewBar } from './timeline/review-bar.js';
import { ReviewControls } from './timeline/review-controls.js';
import './timeline/timeline.css';

export { keyMove } from './timeline/keys.js';

const HOUR_MS = 3600_000;
/** How far before its newest recorded moment the player opens (a few seconds to watch, not the very end). */
const NEWEST_LEAD_MS = 10_000;

/**
 * A camera's recording on the wall clock (issue 23): the player of a recorded range (the hour of
 * the chosen moment and the hour before, review-zoom.ts playRangeAround) with its moment written
 * as the wall clock with the zone, speeds and a date to jump to; the review bar under it, zoomed
 * from 5 minutes to 7 days, with the recording's ranges and gaps, the camera's events and hover
 * thumbnails. It opens at the newest recorded moment, or at `startAtMs` (the camera page's `?t=`).
 * A range chosen on the bar is exported as MP4 by the node (`onExport`).
 */
export function RecordingTimeline(props: {
  cameraId: string;
  onExport(range: { from: number; duration: number }): void;
  /** A moment to open at (epoch ms); a new value jumps there. */
  startAtMs?: number | null;
}) {
  const t = useTimeDisplay();
  const [nowMs, setNowMs] = useState(() => Date.now());
  const [view, setView] = useState<View>(() =>
    centredOn(props.startAtMs ?? Date.now() - HOUR_MS / 2, HOUR_MS, Date.now()),
  );
  // The moment to start the next range at: null is "the newest recorded one".
  const [target, setTarget] = useState<number | null>(props.startAtMs ?? null);
  const [range, setRange] = useState(() => ({ ...playRangeAround(props.startAtMs ?? Date.now()), rev: 0 }));
  const [video, setVideo] = useState<HTMLVideoElement | null>(null);
  const [moment, setMoment] = useState<number | null>(null);
  const [speed, setSpeed] = useState(1);

  const played = usePlayRange(props.cameraId, range);
  const chunks = useMemo(() => chunksOf(view, nowMs), [view, nowMs]);
  const recorded = useRecordedChunks(props.cameraId, chunks);
  const ranges = recorded.ranges;
  const segments = useMemo(() => played.data?.segments ?? [], [played.data]);
  const eventsFrom = Math.floor(chunks[0]?.from ?? view.fromMs / 1000);
  const events = useCameraEvents(props.cameraId, eventsFrom, Math.ceil(view.spanMs / 1000));

  // Where the range starts playing: the target moment, else just before its newest one.
  const startAt = useMemo(() => {
    const last = segments[segments.length - 1];
    if (!last) return undefined;
    const at = target ?? last.startMs + last.durationMs - NEWEST_LEAD_MS;
    // Past the end of the recording: its newest moment.
    return positionOf(segments, at) ?? last.offsetS;
  }, [segments, target]);
  const startMoment = startAt === undefined ? null : momentOf(segments, startAt);

  // hls.js puts a VOD back to its own start position once its first fragment is in, after the
  // player's seek to `startAt`: the start is held until the video is there (or the user seeks).
  const holding = useRef(false);
  useEffect(() => {
    if (!video || startAt === undefined) return;
    holding.current = true;
    const hold = () => {
      if (!holding.current) return;
      // Only back to it from before it: at 8x a timeupdate may already be seconds past it.
      if (video.currentTime < startAt - 1.5) video.currentTime = startAt;
      else if (!video.paused) holding.current = false;
    };
    const events = ['loadeddata', 'playing', 'timeupdate'] as const;
    for (const e of events) video.addEventListener(e, hold);
    return () => {
      for (const e of events) video.removeEventListener(e, hold);
    };
  }, [video, startAt]);

  useEffect(() => {
    if (!video) return;
    const tick = () => setMoment(momentOf(segments, video.currentTime));
    // A new source resets the rate; the chosen speed stays.
    const rate = () => {
      video.defaultPlaybackRate = speed;
      video.playbackRate = speed;
    };
    rate();
    video.addEventListener('timeupdate', tick);
    video.addEventListener('loadedmetadata', rate);
    return () => {
      video.removeEventListener('timeupdate', tick);
      video.removeEventListener('loadedmetadata', rate);
    };
  }, [video, segments, speed]);

  const seek = useCallback(
    (atMs: number) => {
      holding.current = false;
      setMoment(atMs);
      const inRange = atMs >= range.from * 1000 && atMs < (range.from + range.duration) * 1000;
      const p = inRange ? positionOf(segments, atMs) : null;
      if (video && p !== null) {
        video.currentTime = p;
        void video.play().catch(() => {});
        return;
      }
      setTarget(atMs);
      const next = playRangeAround(atMs);
      setRange((r) => (r.from === next.from ? { ...r, rev: r.rev + 1 } : { ...next, rev: r.rev }));
    },
    [video, segments, range],
  );
  const jump = useCallback(
    (atMs: number) => {
      setNowMs(Date.now());
      setView((v) => centredOn(atMs, v.spanMs, Date.now()));
      seek(atMs);
    },
    [seek],
  );
  const newest = () => {
    const now = Date.now();
    setNowMs(now);
    setTarget(null);
    setMoment(null);
    setView((v) => centredOn(now - v.spanMs / 2, v.spanMs, now));
    setRange((r) => ({ ...playRangeAround(now), rev: r.rev + 1 }));
  };

  // The camera page's `?t=` changed (a marker or the event page led here again).
  const opened = useRef(props.startAtMs);
  useEffect(() => {
    if (props.startAtMs !== undefined && props.startAtMs !== null && props.startAtMs !== opened.current) {
      opened.current = props.startAtMs;
      jump(props.startAtMs);
    }
  }, [props.startAtMs, jump]);

  // At the end of a range that is not the newest, playing goes on into the next one.
  useEffect(() => {
    if (!video) return;
    const ended = () => {
      const endMs = (range.from + range.duration) * 1000;
      if (endMs < Date.now()) seek(endMs);
    };
    video.addEventListener('ended', ended);
    return () => video.removeEventListener('ended', ended);
  }, [video, range, seek]);

  const onView = useCallback((update: (v: View) => View) => setView(update), []);
  const markers = useMemo(
    () =>
      (events.data?.rows ?? []).map((ev) => ({
        id: ev.id,
        atMs: Date.parse(ev.occurred_at),
        name: `${text(ev.detector)} at ${wallClock(Date.parse(ev.occurred_at), t)}`,
      })),
    [events.data, t],
  );
  const anchor = moment ?? view.fromMs + view.spanMs / 2;
  const playhead = moment ?? startMoment;

  return (
    <div className="timeline review">
      {played.isPending ? (
        <p className="empty">Reading the recording…</p>
      ) : !played.data?.play || segments.length === 0 ? (
        <p className="empty">Nothing recorded around {wallClock(target ?? range.from * 1000 + HOUR_MS, t)}.</p>
      ) : (
        <Player
          key={`${range.from}-${range.rev}`}
          cameraId={props.cameraId}
          source={played.data.play}
          request={{ intent: 'playback', from: range.from, duration: range.duration }}
          startAt={startAt}
          onVideo={setVideo}
        />
      )}
      <ReviewControls
        video={video}
        momentMs={playhead}
        speed={speed}
        onSpeed={(s) => {
          setSpeed(s);
          if (video) video.playbackRate = s;
        }}
        onJump={jump}
        onNewest={newest}
      />
      <div className="timeline-tools">
        <button type="button" aria-label="Zoom in" onClick={() => setView((v) => zoomStep(v, -1, anchor, nowMs))}>
          +
        </button>
        <button type="button" aria-label="Zoom out" onClick={() => setView((v) => zoomStep(v, 1, anchor, nowMs))}>
          −
        </button>
        <span className="span" data-testid="view-span">
          {spanWords(view.spanMs)}
        </span>
        {ranges.length > 0 && (
          <button
            type="button"
            onClick={() => {
              const r = ranges[ranges.length - 1]!;
              const f = Math.floor(r.fromMs / 1000);
              props.onExport({ from: f, duration: Math.max(1, Math.min(86_400, Math.ceil(r.toMs / 1000) - f)) });
            }}
          >
            Export last range
          </button>
        )}
      </div>
      <ReviewBar
        view={view}
        nowMs={nowMs}
        onView={onView}
        ranges={ranges}
        playheadMs={playhead}
        markers={markers}
        onSeek={seek}
        thumb={(secs) => thumbUrl(played.data, secs)}
      />
      {!recorded.pending && ranges.length === 0 && <p className="empty">Nothing recorded in this window.</p>}
    </div>
  );
}

/** "5 min", "3 h", "7 days": the span the bar shows. */
function spanWords(ms: number): string {
  const m = Math.round(ms / 60_000);
  if (m < 120) return `${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}
