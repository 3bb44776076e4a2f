import { useCallback, useEffect, useRef, useState } from 'react';
import type { Camera } from '../../api/cameras.js';
import { momentOf } from '../../lib/recording.js';
import {
  changed,
  correction,
  masterAt,
  mustHold,
  recordedPosition,
  SPEEDS,
  stoppedClock,
  type MasterClock,
} from '../../lib/review-sync.js';
import { ExportPanel } from '../export-panel.js';
import { Time } from '../time.js';
import { ReviewTile, type TileMedia } from './review-tile.js';
import { ScrubBar } from './scrub-bar.js';
import './review.css';

/** How often the clock steers the videos: often enough that a nudge acts before a drift grows. */
const TICK_MS = 100;
/** What a browser's playbackRate takes (Chromium refuses outside 1/16..16). */
const clampRate = (r: number) => Math.min(16, Math.max(0.0625, r));

interface Steered extends TileMedia {
  /** performance.now() since when the video, which should play, is loading or seeking; null when ready */
  waitingSince: number | null;
}

/**
 * The synchronised review (issue 23): the chosen cameras' recordings from one master clock
 * (lib/review-sync.ts). Every TICK_MS the clock's moment is mapped into each camera's playlist; a
 * video off by more than SEEK_OVER_S is moved there, a smaller drift is closed with playbackRate;
 * a camera without recording at the moment is paused under "No recording at this time". The clock
 * waits (at most HOLD_MAX_MS) for a video that loads or seeks, so a seek does not leave one
 * camera behind the others. One play/pause, speed, time and position for all.
 */
export function ReviewWall(props: { cameras: readonly Camera[]; fromMs: number; spanS: number }) {
  const { fromMs, spanS } = props;
  const toMs = fromMs + spanS * 1000;
  const clock = useRef<MasterClock>({ ...stoppedClock(fromMs, performance.now()), playing: true });
  const media = useRef(new Map<string, Steered>());
  const [shown, setShown] = useState({ atMs: fromMs, playing: true, speed: 1 });
  const [unrecorded, setUnrecorded] = useState<ReadonlySet<string>>(new Set());
  const [exporting, setExporting] = useState<{ camera: Camera; from: number } | null>(null);

  const onMedia = useCallback((id: string, m: TileMedia | null) => {
    if (m) media.current.set(id, { ...m, waitingSince: null });
    else media.current.delete(id);
  }, []);

  const tick = useCallback(() => {
    const perf = performance.now();
    let c = clock.current;
    if (masterAt(c, perf) >= toMs) c = changed(c, perf, { playing: false, anchorMs: toMs });
    const at = masterAt(c, perf);
    const running = c.playing && !c.held;
    const waits: Array<number | null> = [];
    const gaps = new Set<string>();
    for (const [id, m] of media.current) {
      const v = m.video;
      const target = recordedPosition(m.segments, at);
      if (target === null) gaps.add(id);
      if (!v) continue;
      if (target === null) {
        m.waitingSince = null;
        if (!v.paused) v.pause();
        continue;
      }
      // HAVE_FUTURE_DATA: it can play on from here.
      const ready = v.readyState >= 3 && !v.seeking;
      m.waitingSince = ready ? null : (m.waitingSince ?? perf);
      waits.push(m.waitingSince);
      if (v.readyState >= 1 && !v.seeking) {
        const fix = correction(v.currentTime, target, c.speed);
        if (fix.kind === 'seek') v.currentTime = fix.to;
        else v.playbackRate = clampRate(fix.rate);
      }
      if (running && v.paused) void v.play().catch(() => {});
      if (!running && !v.paused) v.pause();
      // The moment this video shows, for whoever checks the sync (the browser test reads it).
      const showing = momentOf(m.segments, v.currentTime);
      if (showing !== null) v.dataset.shows = String(Math.round(showing));
    }
    const hold = c.playing && mustHold(waits, perf);
    if (hold !== c.held) c = changed(c, perf, { held: hold });
    clock.current = c;
    const atS = Math.floor(masterAt(c, perf) / 1000) * 1000;
    setShown((s) =>
      s.atMs === atS && s.playing === c.playing && s.speed === c.speed
        ? s
        : { atMs: atS, playing: c.playing, speed: c.speed },
    );
    setUnrecorded((u) => (u.size === gaps.size && [...gaps].every((g) => u.has(g)) ? u : gaps));
  }, [toMs]);

  useEffect(() => {
    const timer = setInterval(tick, TICK_MS);
    return () => clearInterval(timer);
  }, [tick]);

  const change = (what: Parameters<typeof changed>[2]) => {
    const perf = performance.now();
    clock.current = changed(clock.current, perf, what);
    tick();
  };
  const playing = shown.playing;

  return (
    <div className="sync-wall">
      <div className="sync-controls">
        <button
          type="button"
          onClick={() =>
            change(
              // Play at the end of the span starts it again from its beginning.
              !playing && shown.atMs >= toMs - 1000 ? { playing: true, anchorMs: fromMs } : { playing: !playing },
            )
          }
        >
          {playing ? 'Pause' : 'Play'}
        </button>
        <label>
          Speed{' '}
          <select value={shown.speed} onChange={(e) => change({ speed: Number(e.target.value) })}>
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}x
              </option>
            ))}
          </select>
        </label>
        <output className="sync-time" aria-label="Review time">
          <Time at={shown.atMs} />
        </output>
      </div>
      <ScrubBar fromMs={fromMs} toMs={toMs} atMs={shown.atMs} onSeek={(atMs) => change({ anchorMs: atMs })} />
      <div className={`sync-tiles n${props.cameras.length}`}>
        {props.cameras.map((c) => (
          <ReviewTile
            key={c.id}
            camera={c}
            fromS={Math.floor(fromMs / 1000)}
            spanS={spanS}
            recorded={!unrecorded.has(c.id)}
            onMedia={onMedia}
            onExport={(camera) => setExporting({ camera, from: shown.atMs })}
          />
        ))}
      </div>
      {exporting && (
        <section className="sync-export">
          <h3>
            Export of {exporting.camera.name}{' '}
            <button type="button" onClick={() => setExporting(null)}>
              Close
            </button>
          </h3>
          <ExportPanel
            key={`${exporting.camera.id}-${exporting.from}`}
            camera={exporting.camera}
            from={exporting.from}
            duration={60}
          />
        </section>
      )}
    </div>
  );
}
