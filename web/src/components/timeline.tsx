import { useCallback, useEffect, useMemo, useState } from 'react';
import { useRecording } from '../hooks/use-cameras.js';
import { useCameraEvents } from '../hooks/use-events.js';
import { Player } from './player.js';
import { momentOf, positionOf, rangesOf } from '../lib/recording.js';

const WINDOWS = [
  { label: '1 h', s: 3600 },
  { label: '6 h', s: 6 * 3600 },
  { label: '24 h', s: 86_400 },
];

/** Seconds a key moves the playhead: an arrow 10 s, with Shift or Page Up/Down a twelfth of the window. */
const STEP_S = 10;

/** The moment (ms) a key of the slider moves to from `at`, within [fromMs, endMs]; null for a key it does not use. */
export function keyMove(key: string, shift: boolean, at: number, fromMs: number, endMs: number, windowS: number) {
  const big = (windowS / 12) * 1000;
  const small = shift ? big : STEP_S * 1000;
  const to =
    key === 'ArrowRight' || key === 'ArrowUp'
      ? at + small
      : key === 'ArrowLeft' || key === 'ArrowDown'
        ? at - small
        : key === 'PageUp'
          ? at + big
          : key === 'PageDown'
            ? at - big
            : key === 'Home'
              ? fromMs
              : key === 'End'
                ? endMs
                : null;
  return to === null ? null : Math.min(endMs, Math.max(fromMs, to));
}

/**
 * A camera's recording over a window ending now: the recorded ranges (from the playback
 * playlist), the camera's events as markers (the feed filtered to the camera and the window),
 * and a player of the window; a click on the bar or on a marker seeks to that moment. The bar is a
 * slider for the keyboard too (issue 22): focusable, the arrows move the playhead (keyMove), and
 * each marker is a button named by its event. A range chosen on the bar is exported as MP4 by the node.
 */
export function RecordingTimeline(props: {
  cameraId: string;
  onExport(range: { from: number; duration: number }): void;
}) {
  const [windowS, setWindowS] = useState(3600);
  const [end] = useState(() => Math.floor(Date.now() / 1000));
  const from = end - windowS;
  const source = useRecording(props.cameraId, from, windowS);
  const events = useCameraEvents(props.cameraId, from, windowS);
  const [video, setVideo] = useState<HTMLVideoElement | null>(null);
  const [now, setNow] = useState<number | null>(null);
  const segments = useMemo(() => source.data?.segments ?? [], [source.data]);
  const ranges = useMemo(() => rangesOf(segments), [segments]);
  useEffect(() => {
    if (!video) return;
    const tick = () => setNow(momentOf(segments, video.currentTime));
    video.addEventListener('timeupdate', tick);
    return () => video.removeEventListener('timeupdate', tick);
  }, [video, segments]);
  const seek = useCallback(
    (atMs: number) => {
      // The playhead moves at once (the keyboard's next step starts from it); the video follows.
      setNow(atMs);
      const p = positionOf(segments, atMs);
      if (video && p !== null) {
        video.currentTime = p;
        void video.play().catch(() => {});
      }
    },
    [video, segments],
  );
  // Where the playhead is: the video's moment, else the start of the recording shown.
  const position = now ?? ranges[0]?.fromMs ?? from * 1000;
  const x = (ms: number) => `${Math.min(100, Math.max(0, ((ms / 1000 - from) / windowS) * 100))}%`;

  return (
    <div className="timeline">
      <div className="timeline-tools">
        {WINDOWS.map((w) => (
          <button key={w.s} aria-pressed={w.s === windowS} onClick={() => setWindowS(w.s)}>
            {w.label}
          </button>
        ))}
        {ranges.length > 0 && (
          <button
            onClick={() => {
              const r = ranges[ranges.length - 1]!;
              const f = Math.floor(r.fromMs / 1000);
              props.onExport({ from: f, duration: Math.max(1, Math.ceil(r.toMs / 1000) - f) });
            }}
          >
            Export last range
          </button>
        )}
      </div>
      {source.isPending ? (
        <p className="empty">Reading the recording…</p>
      ) : !segments.length ? (
        <p className="empty">Nothing recorded in this window.</p>
      ) : (
        <>
          <Player cameraId={props.cameraId} controls source={source.data!.play!} onVideo={setVideo} />
          <div
            className="bar"
            onClick={(e) => {
              const box = e.currentTarget.getBoundingClientRect();
              seek((from + ((e.clientX - box.left) / box.width) * windowS) * 1000);
            }}
          >
            {/* The slider holds the drawing; the markers are its siblings, as a control may not hold controls. */}
            <div
              className="bar-slider"
              role="slider"
              tabIndex={0}
              aria-label="Recording position"
              aria-valuemin={from}
              aria-valuemax={end}
              aria-valuenow={Math.floor(position / 1000)}
              aria-valuetext={new Date(position).toLocaleTimeString()}
              onKeyDown={(e) => {
                const to = keyMove(e.key, e.shiftKey, position, from * 1000, end * 1000, windowS);
                if (to === null) return;
                e.preventDefault();
                seek(to);
              }}
            >
              {ranges.map((r) => (
                <span
                  key={r.fromMs}
                  className="range"
                  style={{ left: x(r.fromMs), width: `calc(${x(r.toMs)} - ${x(r.fromMs)})` }}
                />
              ))}
              {now !== null && <span className="playhead" style={{ left: x(now) }} />}
            </div>
            {events.data?.rows.map((ev) => {
              const name = `${ev.detector} at ${new Date(ev.occurred_at).toLocaleTimeString()}`;
              return (
                <button
                  key={ev.id}
                  type="button"
                  className="marker"
                  aria-label={`Play from ${name}`}
                  title={name}
                  style={{ left: x(Date.parse(ev.occurred_at)) }}
                  onClick={(e) => {
                    e.stopPropagation();
                    seek(Date.parse(ev.occurred_at));
                  }}
                />
              );
            })}
          </div>
          <div className="bar-scale">
            <span>{new Date(from * 1000).toLocaleTimeString()}</span>
            <span>{now ? new Date(now).toLocaleTimeString() : ''}</span>
            <span>now</span>
          </div>
        </>
      )}
    </div>
  );
}
