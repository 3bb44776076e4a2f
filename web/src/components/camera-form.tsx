import { useId, useState } from 'react';
import { errorSentence } from '../api/error-words.js';
import { ApiFailure } from '../api/failure.js';
import type { Camera, CameraChange, CameraCreate, ProbeResult } from '../api/cameras.js';
import type { Tag } from '../api/users.js';
import { useProbeSource } from '../hooks/use-cameras.js';
import { SourceSnapshot } from './source-snapshot.js';
import { Field } from './field.js';

/** A node the form offers: its id and how it is called to the viewer (a superadmin knows names, an administrator only ids). */
export interface NodeChoice {
  id: string;
  label: string;
}

type FieldName = 'name' | 'node' | 'main' | 'sub' | 'tags' | 'recording';
type FieldErrors = Partial<Record<FieldName | 'form', string>>;

/** The field a refusal of the camera routes concerns (src/plane/cameras CameraFieldCodes), so its sentence goes beside it. */
function fieldsOf(code: string, subGiven: boolean): Array<FieldName | 'form'> {
  if (code === 'bad_name' || code === 'already_exists') return ['name'];
  if (code === 'unknown_node') return ['node'];
  // The plane does not say which source it refused: beside the main one, and the sub one when it was given.
  if (code === 'bad_source_url') return subGiven ? ['main', 'sub'] : ['main'];
  if (code === 'unknown_tag') return ['tags'];
  if (code === 'bad_recording') return ['recording'];
  return ['form'];
}

/** What a probe found, in words: "h264, 640×360, 15 fps, audio aac", or why the node could not read it. */
export function probeWords(r: ProbeResult): string {
  if (!r.ok || !r.video) return `The node could not read this source: ${r.error ?? 'no video found in it'}.`;
  const v = r.video;
  const fps = v.fps === null ? 'frame rate not declared' : `${Math.round(v.fps * 100) / 100} fps`;
  return `${v.codec}, ${v.width}×${v.height}, ${fps}${r.audio ? `, audio ${r.audio.codec}` : ', no audio'}.`;
}

const DAYS = /^([1-9][0-9]{0,6})d$/;

/**
 * A camera's form, to add one or to change one (document 4 §3: name, node, main source, optional
 * sub source, tags, recording and its retention in days). "Test source" asks the chosen node to
 * open the main source once. A refusal of the plane is said beside the field it concerns and
 * what was typed stays (the caller keeps the form open until the plane accepts it).
 */
export function CameraForm(props: {
  camera?: Camera;
  nodes: NodeChoice[];
  /** Whether `nodes` is the fleet's list (a superadmin's select) or only the nodes of the viewer's cameras. */
  nodesListed: boolean;
  tags: Tag[];
  busy: boolean;
  onSave(body: CameraCreate | CameraChange): Promise<unknown>;
  onCancel(): void;
}) {
  const c = props.camera;
  // Without React's colons: an id that is also a valid CSS selector (a datalist is looked up by it).
  const id = useId().replace(/:/g, '');
  const [name, setName] = useState(c?.name ?? '');
  const [node, setNode] = useState(c?.node_id ?? (props.nodes.length === 1 ? props.nodes[0]!.id : ''));
  const [main, setMain] = useState(c?.main_source ?? '');
  const [sub, setSub] = useState(c?.sub_source ?? '');
  const [tagIds, setTagIds] = useState<string[]>(c?.tag_ids ?? []);
  const [record, setRecord] = useState(c ? c.recording !== null : true);
  // A retention the plane holds in another unit (12h) is kept as it is unless the days are changed.
  const [days, setDays] = useState(DAYS.exec(c?.recording?.retention ?? '7d')?.[1] ?? '');
  const [recordingTouched, setRecordingTouched] = useState(!c);
  const [errors, setErrors] = useState<FieldErrors>({});
  const probe = useProbeSource();
  const [masked, setMasked] = useState(false);

  const body = (): CameraCreate | CameraChange => {
    const recording = record ? { retention: `${days}d` } : null;
    return {
      name: name.trim(),
      node_id: node.trim(),
      main_source: main.trim(),
      sub_source: sub.trim() ? sub.trim() : null,
      tag_ids: tagIds,
      ...(recordingTouched ? { recording } : {}),
    };
  };
  const save = async () => {
    if (record && recordingTouched && !DAYS.test(`${days}d`)) {
      setErrors({ recording: 'Keep the recording for a whole number of days, at least 1.' });
      return;
    }
    setErrors({});
    try {
      await props.onSave(body());
    } catch (err) {
      const code = err instanceof ApiFailure ? err.code : '';
      const sentence = errorSentence(err);
      setErrors(Object.fromEntries(fieldsOf(code, !!sub.trim()).map((f) => [f, sentence])));
    }
  };
  const beside = (f: 'tags' | 'form') =>
    errors[f] ? (
      <p className="error" role="alert">
        {errors[f]}
      </p>
    ) : null;

  return (
    <form
      className="camera-form grid-form"
      aria-label={c ? `Change ${c.name}` : 'New camera'}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Field label="Name" error={errors.name}>
        {(f) => <input {...f} name="camera-name" value={name} onChange={(e) => setName(e.target.value)} required />}
      </Field>
      <Field
        label="Node"
        error={errors.node}
        hint={props.nodesListed ? undefined : 'The node of one of your cameras, or the id your superadmin gives you.'}
      >
        {(f) =>
          props.nodesListed ? (
            <select {...f} name="camera-node" value={node} onChange={(e) => setNode(e.target.value)} required>
              <option value="">Choose a node</option>
              {props.nodes.map((n) => (
                <option key={n.id} value={n.id}>
                  {n.label}
                </option>
              ))}
            </select>
          ) : (
            // An administrator reads no node list (superadmin only): the nodes of its cameras are offered, any other by its id.
            <>
              <input
                {...f}
                name="camera-node"
                value={node}
                list={`${id}-nodes`}
                placeholder="the node's id"
                onChange={(e) => setNode(e.target.value)}
                required
              />
              <datalist id={`${id}-nodes`}>
                {props.nodes.map((n) => (
                  <option key={n.id} value={n.id} label={n.label} />
                ))}
              </datalist>
            </>
          )
        }
      </Field>
      <div className="wide">
        <Field label="Main source" error={errors.main}>
          {(f) => (
            <input
              {...f}
              name="camera-main"
              value={main}
              placeholder="rtsp://user:password@10.0.0.5/stream1"
              onChange={(e) => setMain(e.target.value)}
              required
            />
          )}
        </Field>
      </div>
      <div className="wide">
        <Field label="Sub source" error={errors.sub} hint="Optional: a smaller stream for the live grid.">
          {(f) => <input {...f} name="camera-sub" value={sub} onChange={(e) => setSub(e.target.value)} />}
        </Field>
      </div>
      {props.tags.length > 0 && (
        <fieldset className="wide tags">
          <legend>Tags</legend>
          {props.tags.map((t) => (
            <label key={t.id} className="check">
              <input
                type="checkbox"
                checked={tagIds.includes(t.id)}
                onChange={(e) => setTagIds(e.target.checked ? [...tagIds, t.id] : tagIds.filter((x) => x !== t.id))}
              />
              {t.name}
            </label>
          ))}
          {beside('tags')}
        </fieldset>
      )}
      <label className="check">
        <input
          type="checkbox"
          name="camera-record"
          checked={record}
          onChange={(e) => {
            setRecord(e.target.checked);
            setRecordingTouched(true);
          }}
        />
        Record
      </label>
      <Field label="Retention days" error={errors.recording}>
        {(f) => (
          <input
            {...f}
            name="camera-retention"
            type="number"
            min={1}
            step={1}
            value={days}
            disabled={!record}
            placeholder={c?.recording && !DAYS.test(c.recording.retention) ? c.recording.retention : undefined}
            onChange={(e) => {
              setDays(e.target.value);
              setRecordingTouched(true);
            }}
          />
        )}
      </Field>
      <div className="actions">
        <button
          type="button"
          disabled={!node.trim() || !main.trim() || probe.isPending}
          onClick={() => {
            // The plane masks a stored password as ***: the node would try that literally and be refused.
            if (main.includes(':***@')) {
              probe.reset();
              setMasked(true);
              return;
            }
            setMasked(false);
            probe.mutate({ node_id: node.trim(), url: main.trim() });
          }}
        >
          Test source
        </button>
        <SourceSnapshot node={node} url={main} />
        <button type="submit" disabled={props.busy}>
          {c ? 'Save changes' : 'Save camera'}
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      <p className="wide meta">
        &quot;Test source&quot; has the node open the main source once and read its codec, size and frame rate;
        &quot;Snapshot&quot; has it read one picture of it.
      </p>
      <p className="wide probe" role="status" aria-live="polite" aria-label="Source test">
        {masked
          ? "The source's password is hidden (***): type it again to test the source."
          : probe.isPending
            ? 'Testing the source on the node (up to 10 s)…'
            : probe.isError
              ? errorSentence(probe.error)
              : probe.data
                ? probeWords(probe.data)
                : null}
      </p>
      {beside('form')}
    </form>
  );
}
