import { useEffect, useState } from 'react';
import type { Camera } from '../api/cameras.js';
import { useExport, type ExportState } from '../hooks/use-export.js';
import { useTimeDisplay } from '../hooks/use-time.js';
import { fromZonedInput, zonedInput } from '../lib/zoned-input.js';
import { zoneName } from '../lib/text.js';
import { Field } from './field.js';
import './export-panel.css';

/** The camera's fields the panel reads. */
type ExportedCamera = Pick<Camera, 'id' | 'name' | 'sub_source' | 'profiles'>;

/** Whether the camera has a sub stream to export: a sub source, or a SUB profile on its node. */
export const hasSubStream = (c: ExportedCamera): boolean => !!c.sub_source || c.profiles.some((p) => p.kind === 'SUB');

/** The longest export the form offers (a day); the plane has the last word. */
const MAX_DURATION_S = 86_400;

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The progress line of a running export, as read aloud and shown. */
function progressText(s: ExportState): string {
  if (s.phase === 'preparing') return 'Preparing…';
  if (s.phase !== 'receiving') return '';
  if (s.total === null) return `${size(s.received)} received`;
  return `${size(s.received)} of ${size(s.total)} (${Math.floor((s.received / s.total) * 100)} %)`;
}

/**
 * An export of one camera's recording (issue 23): the start in the user's zone, the duration, the
 * stream (sub only when the camera has one) and the signed zip; the download's progress, a
 * Cancel, and a refusal said as a sentence with the form kept as typed. `from`/`duration`
 * (a range chosen elsewhere: the timeline, the review's clock) fill the form when they change.
 */
export function ExportPanel(props: { camera: ExportedCamera; from?: number; duration?: number; title?: string }) {
  const t = useTimeDisplay();
  const exp = useExport();
  const [from, setFrom] = useState(() => zonedInput(props.from ?? Date.now() - 10 * 60_000, t.zone));
  const [duration, setDuration] = useState(String(props.duration ?? 60));
  const [stream, setStream] = useState<'main' | 'sub'>('main');
  const [signed, setSigned] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (props.from !== undefined) setFrom(zonedInput(props.from, t.zone));
    if (props.duration !== undefined) setDuration(String(props.duration));
  }, [props.from, props.duration, t.zone]);
  const sub = hasSubStream(props.camera);
  const s = exp.state;

  const submit = () => {
    const at = fromZonedInput(from, t.zone);
    const seconds = Number(duration);
    if (at === null) return setProblem('Choose the moment the export starts.');
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_DURATION_S)
      return setProblem(`The duration is a whole number of seconds from 1 to ${MAX_DURATION_S}.`);
    setProblem(null);
    void exp.start({ cameraId: props.camera.id, from: at, duration: seconds, stream, manifest: signed });
  };

  return (
    <form
      className="export-panel"
      aria-label={props.title ?? `Export of ${props.camera.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <Field label={`From (${zoneName(t)})`}>
        {(c) => (
          <input
            {...c}
            type="datetime-local"
            step={1}
            name="from"
            value={from}
            onChange={(e) => setFrom(e.target.value)}
          />
        )}
      </Field>
      <Field label="Duration (seconds)">
        {(c) => (
          <input
            {...c}
            type="number"
            name="duration"
            min={1}
            max={MAX_DURATION_S}
            value={duration}
            onChange={(e) => setDuration(e.target.value)}
          />
        )}
      </Field>
      <Field label="Stream">
        {(c) => (
          <select {...c} name="stream" value={stream} onChange={(e) => setStream(e.target.value as 'main' | 'sub')}>
            <option value="main">Main</option>
            {sub && <option value="sub">Sub</option>}
          </select>
        )}
      </Field>
      <label className="check">
        <input type="checkbox" name="signed" checked={signed} onChange={(e) => setSigned(e.target.checked)} /> Signed
        (zip with manifest)
      </label>
      <div className="export-actions">
        <button type="submit" disabled={exp.busy}>
          Export
        </button>
        {exp.busy && (
          <button type="button" onClick={exp.cancel}>
            Cancel
          </button>
        )}
      </div>
      {exp.busy && (
        <div className="export-progress">
          <progress
            aria-label="Export progress"
            max={s.phase === 'receiving' && s.total !== null ? s.total : undefined}
            value={s.phase === 'receiving' && s.total !== null ? s.received : undefined}
          />
          <span role="status">{progressText(s)}</span>
        </div>
      )}
      {problem && (
        <p className="error" role="alert">
          {problem}
        </p>
      )}
      {s.phase === 'failed' && (
        <p className="error" role="alert">
          Export refused: {s.sentence}
        </p>
      )}
      {s.phase === 'cancelled' && <p role="status">Export cancelled.</p>}
      {s.phase === 'saved' && (
        <p role="status">
          Saved {s.name} ({size(s.bytes)}).
        </p>
      )}
    </form>
  );
}
