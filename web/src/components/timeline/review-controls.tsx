import { useEffect, useState } from 'react';
import { useTimeDisplay } from '../../hooks/use-time.js';
import { epochOfLocal, fieldsIn, localInputOf, wallClock } from '../../lib/review-time.js';

export const SPEEDS = [0.5, 1, 2, 4, 8] as const;

/**
 * The recording player's own controls (the video's native ones would show an offset into the
 * playlist, "0:05 / 2:00"): play and pause, the moment on the wall clock with its zone, the
 * speeds, a date and time to jump to, and the newest moment.
 */
export function ReviewControls(props: {
  video: HTMLVideoElement | null;
  momentMs: number | null;
  speed: number;
  onSpeed(s: number): void;
  onJump(atMs: number): void;
  onNewest(): void;
}) {
  const t = useTimeDisplay();
  const { video } = props;
  const [paused, setPaused] = useState(true);
  const [picked, setPicked] = useState('');
  useEffect(() => {
    if (!video) return;
    const sync = () => setPaused(video.paused);
    sync();
    video.addEventListener('play', sync);
    video.addEventListener('pause', sync);
    return () => {
      video.removeEventListener('play', sync);
      video.removeEventListener('pause', sync);
    };
  }, [video]);
  const jump = () => {
    const at = epochOfLocal(picked, t);
    if (at !== null) props.onJump(at);
  };
  return (
    <div className="review-controls">
      <button
        type="button"
        onClick={() => (video?.paused ? void video.play().catch(() => {}) : video?.pause())}
        disabled={!video}
        aria-label={paused ? 'Play recording' : 'Pause recording'}
      >
        {paused ? '▶' : '❚❚'}
      </button>
      <output className="wall-clock" aria-live="off" data-testid="wall-clock">
        {wallClock(props.momentMs, t)}
      </output>
      <span className="speeds" role="group" aria-label="Speed">
        {SPEEDS.map((s) => (
          <button key={s} type="button" aria-pressed={props.speed === s} onClick={() => props.onSpeed(s)}>
            {s}x
          </button>
        ))}
      </span>
      <form
        className="jump"
        onSubmit={(e) => {
          e.preventDefault();
          jump();
        }}
      >
        <label>
          Go to ({fieldsIn(props.momentMs ?? Date.now(), t).zone}){' '}
          <input
            type="datetime-local"
            step={1}
            value={picked}
            onFocus={() => {
              if (!picked && props.momentMs !== null) setPicked(localInputOf(props.momentMs, t));
            }}
            onChange={(e) => setPicked(e.target.value)}
          />
        </label>
        <button type="submit" disabled={!picked}>
          Go
        </button>
      </form>
      <button type="button" onClick={props.onNewest}>
        Newest
      </button>
    </div>
  );
}
