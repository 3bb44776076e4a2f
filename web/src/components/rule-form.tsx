import { useState } from 'react';
import type { Channel, Rule } from '../api/notifications.js';
import { DAY_NAMES, listOf, SEVERITIES } from '../lib/notification-text.js';
import { Field } from './field.js';

/** What the rule form sends: the fields of a rule (document 4 §13), without org and revision. */
export interface RuleValues {
  name: string;
  enabled: boolean;
  match: Rule['match'];
  schedule: Rule['schedule'];
  cooldown_secs: number;
  channel_ids: string[];
}

interface Window {
  days: number[];
  from: string;
  to: string;
}

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/**
 * A rule's form, for a new rule or an edit of `rule`: what it matches (severity, detectors,
 * categories, cameras, tags, open intervals), when (always, or windows of days and hours in a
 * zone), the cooldown and its channels. The plane checks every value; its refusal is shown by the
 * page (`error`), what was typed stays.
 */
export function RuleForm(props: {
  rule?: Rule;
  channels: Channel[];
  cameras: Array<{ id: string; name: string }>;
  tags: Array<{ id: string; name: string }>;
  busy: boolean;
  error: string | null;
  onSubmit(values: RuleValues): void;
  onCancel?(): void;
}) {
  const r = props.rule;
  const [name, setName] = useState(r?.name ?? '');
  const [severity, setSeverity] = useState(r?.match.severity_min ?? 3);
  const [detectors, setDetectors] = useState((r?.match.detectors ?? []).join(', '));
  const [categories, setCategories] = useState((r?.match.categories ?? []).join(', '));
  const [cameraIds, setCameraIds] = useState<string[]>(r?.match.camera_ids ?? []);
  const [tagIds, setTagIds] = useState<string[]>(r?.match.tag_ids ?? []);
  const [openOnly, setOpenOnly] = useState(r?.match.open_only ?? false);
  const [cooldown, setCooldown] = useState(String(r?.cooldown_secs ?? 300));
  const [channelIds, setChannelIds] = useState<string[]>(r?.channel_ids ?? []);
  const [scheduled, setScheduled] = useState(!!r?.schedule);
  const [zone, setZone] = useState(r?.schedule?.timezone ?? browserZone());
  const [windows, setWindows] = useState<Window[]>(
    r?.schedule?.windows ?? [{ days: [1, 2, 3, 4, 5], from: '18:00', to: '07:00' }],
  );
  const setWindow = (i: number, w: Partial<Window>) =>
    setWindows((ws) => ws.map((x, j) => (j === i ? { ...x, ...w } : x)));
  const picked = (e: React.ChangeEvent<HTMLSelectElement>) => [...e.target.selectedOptions].map((o) => o.value);

  return (
    <form
      className="rule-form"
      aria-label={r ? `Edit rule ${r.name}` : 'New rule'}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit({
          name: name.trim(),
          enabled: r?.enabled ?? true,
          match: {
            detectors: listOf(detectors),
            severity_min: severity,
            camera_ids: cameraIds,
            tag_ids: tagIds,
            categories: listOf(categories),
            open_only: openOnly,
          },
          schedule: scheduled ? { timezone: zone.trim(), windows } : null,
          cooldown_secs: Number(cooldown),
          channel_ids: channelIds,
        });
      }}
    >
      <Field label="Name">
        {(c) => (
          <input
            {...c}
            name="rule-name"
            value={name}
            maxLength={128}
            required
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <Field label="Severity at least">
        {(c) => (
          <select {...c} name="severity-min" value={severity} onChange={(e) => setSeverity(Number(e.target.value))}>
            {SEVERITIES.map((s, i) => (
              <option key={s} value={i}>
                {s}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Detectors" hint="Comma-separated; a trailing * matches a prefix (motion.*). Empty: every detector.">
        {(c) => <input {...c} name="detectors" value={detectors} onChange={(e) => setDetectors(e.target.value)} />}
      </Field>
      <Field label="Categories" hint="Comma-separated. Empty: every category.">
        {(c) => <input {...c} name="categories" value={categories} onChange={(e) => setCategories(e.target.value)} />}
      </Field>
      <Field label="Cameras" hint="None chosen: every camera (and events without a camera).">
        {(c) => (
          <select {...c} name="cameras" multiple value={cameraIds} onChange={(e) => setCameraIds(picked(e))}>
            {props.cameras.map((cam) => (
              <option key={cam.id} value={cam.id}>
                {cam.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Camera tags" hint="None chosen: any tag.">
        {(c) => (
          <select {...c} name="tags" multiple value={tagIds} onChange={(e) => setTagIds(picked(e))}>
            {props.tags.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      <label className="check">
        <input type="checkbox" name="open-only" checked={openOnly} onChange={(e) => setOpenOnly(e.target.checked)} />{' '}
        Only interval events still open
      </label>
      <Field label="Cooldown (seconds)" hint="Per camera: a later match inside it is not sent (0..86400).">
        {(c) => (
          <input
            {...c}
            name="cooldown"
            type="number"
            min={0}
            max={86400}
            value={cooldown}
            onChange={(e) => setCooldown(e.target.value)}
          />
        )}
      </Field>
      <fieldset>
        <legend>Send to (1 to 8 channels)</legend>
        {props.channels.length === 0 && <p className="meta">No channel yet: create one on the Channels tab.</p>}
        {props.channels.map((ch) => (
          <label key={ch.id} className="check">
            <input
              type="checkbox"
              name="channel"
              value={ch.id}
              checked={channelIds.includes(ch.id)}
              onChange={(e) =>
                setChannelIds((ids) => (e.target.checked ? [...ids, ch.id] : ids.filter((id) => id !== ch.id)))
              }
            />{' '}
            {ch.name}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>When</legend>
        <label className="check">
          <input
            type="checkbox"
            name="scheduled"
            checked={scheduled}
            onChange={(e) => setScheduled(e.target.checked)}
          />{' '}
          Only at certain times (otherwise always)
        </label>
        {scheduled && (
          <>
            <Field label="Time zone" hint="An IANA zone (Europe/Paris); the windows are its local times.">
              {(c) => <input {...c} name="timezone" value={zone} onChange={(e) => setZone(e.target.value)} />}
            </Field>
            {windows.map((w, i) => (
              <WindowFields
                key={i}
                n={i + 1}
                window={w}
                onChange={(x) => setWindow(i, x)}
                onRemove={windows.length > 1 ? () => setWindows((ws) => ws.filter((_, j) => j !== i)) : undefined}
              />
            ))}
            <button
              type="button"
              onClick={() => setWindows((ws) => [...ws, { days: [6, 7], from: '00:00', to: '23:59' }])}
            >
              Add a window
            </button>
          </>
        )}
      </fieldset>
      {props.error && (
        <p className="error" role="alert">
          {props.error}
        </p>
      )}
      <div className="actions">
        <button type="submit" disabled={props.busy}>
          {r ? 'Save rule' : 'Create rule'}
        </button>
        {props.onCancel && (
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** One window of a schedule: its days and its hours [from, to) (to before from: past midnight). */
function WindowFields(props: { n: number; window: Window; onChange(w: Partial<Window>): void; onRemove?: () => void }) {
  const w = props.window;
  return (
    <fieldset className="window">
      <legend>Window {props.n}</legend>
      {DAY_NAMES.map((d, i) => (
        <label key={d} className="check">
          <input
            type="checkbox"
            checked={w.days.includes(i + 1)}
            onChange={(e) =>
              props.onChange({
                days: e.target.checked ? [...w.days, i + 1].sort((a, b) => a - b) : w.days.filter((x) => x !== i + 1),
              })
            }
          />{' '}
          {d}
        </label>
      ))}
      <Field label={`From (window ${props.n})`}>
        {(c) => <input {...c} type="time" value={w.from} onChange={(e) => props.onChange({ from: e.target.value })} />}
      </Field>
      <Field label={`To (window ${props.n})`}>
        {(c) => <input {...c} type="time" value={w.to} onChange={(e) => props.onChange({ to: e.target.value })} />}
      </Field>
      {props.onRemove && (
        <button type="button" onClick={props.onRemove}>
          Remove window {props.n}
        </button>
      )}
    </fieldset>
  );
}
