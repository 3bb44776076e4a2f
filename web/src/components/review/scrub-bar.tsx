import { useTimeDisplay } from '../../hooks/use-time.js';
import { Time } from '../time.js';

/**
 * The review's one position for every camera: a range input over the chosen span, to the second.
 * A native slider, so the keyboard moves it (arrows a second, Page keys a tenth, Home and End)
 * and a screen reader reads the wall-clock moment (aria-valuetext), not a count of seconds.
 */
export function ScrubBar(props: { fromMs: number; toMs: number; atMs: number; onSeek(atMs: number): void }) {
  const t = useTimeDisplay();
  const value = Math.min(props.toMs, Math.max(props.fromMs, props.atMs));
  return (
    <div className="sync-scrub">
      <Time at={props.fromMs} date={false} className="meta" />
      <input
        type="range"
        aria-label="Review position"
        min={Math.floor(props.fromMs / 1000)}
        max={Math.floor(props.toMs / 1000)}
        step={1}
        value={Math.floor(value / 1000)}
        aria-valuetext={t.when(value)}
        onChange={(e) => props.onSeek(Number(e.target.value) * 1000)}
      />
      <Time at={props.toMs} date={false} className="meta" />
    </div>
  );
}
