import { useEffect, useState } from 'react';
import { fromLocalInput, localInput, PRESETS, presetWindow, type PresetKey } from '../lib/feed-range.js';
import { isoOf, when } from '../lib/text.js';

interface Window {
  from?: string;
  to?: string;
}

/**
 * The feed's time window: "Any time", a preset, or "Between…" two moments typed in the browser's
 * zone (set with its own button, so a half-typed pair asks nothing of the plane).
 */
export function TimeWindowPicker(props: Window & { onChange(w: Window): void }) {
  const set = !!(props.from || props.to);
  const [custom, setCustom] = useState(set);
  const [from, setFrom] = useState(localInput(props.from));
  const [to, setTo] = useState(localInput(props.to));
  useEffect(() => {
    setFrom(localInput(props.from));
    setTo(localInput(props.to));
    setCustom(!!(props.from || props.to));
  }, [props.from, props.to]);
  const bad = !!(from && to && fromLocalInput(from)! >= fromLocalInput(to)!);
  return (
    <span className="time-window">
      <select
        name="range"
        aria-label="Time"
        value={custom ? 'custom' : ''}
        onChange={(e) => {
          const v = e.target.value;
          if (v === 'custom') return setCustom(true);
          setCustom(false);
          props.onChange(v ? presetWindow(v as PresetKey, Date.now()) : {});
        }}
      >
        <option value="">Any time</option>
        {PRESETS.map((p) => (
          <option key={p.key} value={p.key}>
            {p.label}
          </option>
        ))}
        <option value="custom">Between…</option>
      </select>
      {custom && (
        <>
          <label>
            From
            <input type="datetime-local" name="from" value={from} onChange={(e) => setFrom(e.target.value)} />
          </label>
          <label>
            To
            <input type="datetime-local" name="to" value={to} onChange={(e) => setTo(e.target.value)} />
          </label>
          <button
            type="button"
            disabled={bad || (!from && !to)}
            onClick={() => props.onChange({ from: fromLocalInput(from), to: fromLocalInput(to) })}
          >
            Set time
          </button>
          {bad && <span className="error">“From” must come before “To”.</span>}
        </>
      )}
    </span>
  );
}

/** The window in force, said in words (a dashboard's link sets one): with a way to clear it. */
export function TimeWindowShown(props: Window & { onClear(): void }) {
  if (!props.from && !props.to) return null;
  return (
    <p className="window-shown" data-testid="time-window">
      <span>
        {props.from ? (
          <>
            From <time dateTime={isoOf(props.from)}>{when(props.from)}</time>
          </>
        ) : (
          'Up'
        )}{' '}
        {props.to ? (
          <>
            to <time dateTime={isoOf(props.to)}>{when(props.to)}</time>
          </>
        ) : (
          'to now, live'
        )}
      </span>
      <button type="button" className="link" onClick={props.onClear}>
        Clear time
      </button>
    </p>
  );
}
