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

/**
 * A camera's recording over a window ending now: the recorded ranges (from the playback
 * playlist), the camera's events as markers (the feed filtered to the camera and the window),
 * and a player of the window; a click on the bar or on a marker seeks to that moment. A range
 * chosen on the bar is exported as MP4 by the node.
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
      const p = positionOf(segments, atMs);
      if (video && p !== null) {
        video.currentTime = p;
        void video.play().catch(() => {});
      }
    },
    [video, segments],
  );
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
            role="slider"
            aria-label="recording"
            aria-valuemin={from}
            aria-valuemax={end}
            aria-valuenow={now ? Math.floor(now / 1000) : from}
            onClick={(e) => {
              const box = e.currentTarget.getBoundingClientRect();
              seek((from + ((e.clientX - box.left) / box.width) * windowS) * 1000);
            }}
          >
            {ranges.map((r) => (
              <span
                key={r.fromMs}
                className="range"
                style={{ left: x(r.fromMs), width: `calc(${x(r.toMs)} - ${x(r.fromMs)})` }}
              />
            ))}
            {events.data?.rows.map((ev) => (
              <button
                key={ev.id}
                className="marker"
                title={`${ev.detector} ${new Date(ev.occurred_at).toLocaleTimeString()}`}
                style={{ left: x(Date.parse(ev.occurred_at)) }}
                onClick={(e) => {
                  e.stopPropagation();
                  seek(Date.parse(ev.occurred_at));
                }}
              />
            ))}
            {now !== null && <span className="playhead" style={{ left: x(now) }} />}
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
