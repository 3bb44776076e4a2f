// The forms of a dashboard's edit mode: each saves on the revision it was opened with.
import { useState } from 'react';
import { ApiFailure } from '../../api/failure.js';
import { useChangeWidget, useFreshDashboard } from '../../hooks/use-dashboards.js';
import { errorSentence } from '../../api/error-words.js';
import { VIEWS, type Dashboard, type Widget } from './dashboard-model.js';

/**
 * A widget's title, visualization and, for an inline one, its definition as JSON; saved on its
 * revision. When another edit came first (409 stale_revision), both are shown: keep mine (saved
 * on the new revision) or take theirs; nothing typed is lost.
 */
export function WidgetForm(props: { w: Widget; dashboardId: string; onSaved(): void }) {
  const [title, setTitle] = useState(props.w.title);
  const [vis, setVis] = useState(props.w.visualization);
  const [def, setDef] = useState(props.w.inline_definition ? JSON.stringify(props.w.inline_definition, null, 1) : '');
  const [error, setError] = useState<string | null>(null);
  const [theirs, setTheirs] = useState<Widget | null>(null);
  const change = useChangeWidget();
  const fresh = useFreshDashboard(props.dashboardId);
  const save = async (revision: number) => {
    setError(null);
    let inline: unknown;
    if (props.w.inline_definition) {
      try {
        inline = JSON.parse(def);
      } catch {
        setError('Not JSON.');
        return;
      }
    }
    try {
      await change.mutateAsync({
        widget: props.w.id,
        body: { revision, title, visualization: vis, ...(inline ? { inline_definition: inline } : {}) },
      });
      setTheirs(null);
      props.onSaved();
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'stale_revision') {
        const d = await fresh();
        setTheirs(d.widgets.find((x) => x.id === props.w.id) ?? null);
      } else setError(errorSentence(err));
    }
  };
  return (
    <form
      className="widget-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save(props.w.revision);
      }}
    >
      <input aria-label="widget title" value={title} onChange={(e) => setTitle(e.target.value)} />
      <select aria-label="visualization" value={vis} onChange={(e) => setVis(e.target.value)}>
        {Object.keys(VIEWS).map((v) => (
          <option key={v}>{v}</option>
        ))}
      </select>
      {!!props.w.inline_definition && (
        <textarea aria-label="definition" rows={4} value={def} onChange={(e) => setDef(e.target.value)} />
      )}
      <button type="submit">Apply</button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
      {theirs && (
        <div className="secret" role="dialog" aria-label="widget conflict">
          <p>
            Someone else changed this widget meanwhile. Theirs: <b data-testid="widget-theirs">{theirs.title}</b> (
            {theirs.visualization}) · Yours: <b data-testid="widget-mine">{title}</b> ({vis})
          </p>
          <div className="actions">
            <button type="button" onClick={() => void save(theirs.revision)}>
              Keep mine
            </button>
            <button
              type="button"
              onClick={() => {
                setTheirs(null);
                props.onSaved();
              }}
            >
              Take theirs
            </button>
          </div>
        </div>
      )}
    </form>
  );
}

/**
 * The dashboard's name and description; a stale revision is the caller's to show (its conflict
 * dialog), any other refusal is said here beside what was typed, which stays.
 */
export function MetaForm(props: { d: Dashboard; onSave(m: { name: string; description: string }): Promise<void> }) {
  const [name, setName] = useState(props.d.name);
  const [description, setDescription] = useState(props.d.description);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setError(null);
    try {
      await props.onSave({ name, description });
    } catch (err) {
      setError(errorSentence(err));
    }
  };
  return (
    <form
      className="inline"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <label>
        Name
        <input name="dash-name" value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Description
        <input name="dash-description" value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="submit">Save</button>
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </form>
  );
}
