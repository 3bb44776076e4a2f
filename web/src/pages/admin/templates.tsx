import { useState } from 'react';
import { ErrorBanner } from '../../components/list-state.js';
import { errorSentence } from '../../api/error-words.js';
import { useMe } from '../../api/me.js';
import type { Template } from '../../api/templates.js';
import { ConfirmButton } from '../../components/confirm.js';
import { useTemplateEdits, useTemplateMatches, useTemplates, useValidateTemplate } from '../../hooks/use-templates.js';
import { fieldsOf } from '../../lib/text.js';
const EXAMPLE = {
  detector_match: 'demo.*',
  title: { en: 'Demo event' },
  list_fields: [{ key: 'zone', label: 'Zone', source: '/zone' }],
};

/**
 * Event templates (administrators): the list, the JSON document in an editor checked with
 * POST /templates/validate before saving, the detectors of the last 7 days its mask matches; a
 * system template is changed by a superadmin through its override (title, ignore_event only).
 */
export function TemplatesPage() {
  const me = useMe();
  const list = useTemplates();
  const edits = useTemplateEdits();
  const validator = useValidateTemplate();
  const [chosen, setChosen] = useState<Template | null>(null);
  const [name, setName] = useState('');
  const [text, setText] = useState(JSON.stringify(EXAMPLE, null, 2));
  const [check, setCheck] = useState<{ ok: boolean; text: string } | null>(null);
  const matches = useTemplateMatches(chosen?.id);
  const open = (t: Template | null) => {
    setChosen(t);
    setCheck(null);
    setName(t?.name ?? '');
    setText(
      JSON.stringify(
        t
          ? t.system
            ? { title: fieldsOf(t.doc).title, ignore_event: fieldsOf(t.doc).ignore_event ?? false }
            : t.doc
          : EXAMPLE,
        null,
        2,
      ),
    );
  };
  const parsed = (): Record<string, unknown> | null => {
    try {
      return JSON.parse(text) as Record<string, unknown>;
    } catch {
      setCheck({ ok: false, text: 'Not JSON.' });
      return null;
    }
  };
  const say = (err: unknown) => setCheck({ ok: false, text: errorSentence(err) });
  const validate = async () => {
    const doc = parsed();
    if (!doc) return;
    try {
      const r = await validator.mutateAsync(doc);
      setCheck({
        ok: true,
        text: `Valid: matches ${r.detector_match}, ${r.document_bytes} bytes${r.unknown_fields.length ? `; unknown fields ${r.unknown_fields.join(', ')}` : ''}.`,
      });
    } catch (err) {
      say(err);
    }
  };
  const save = async () => {
    const doc = parsed();
    if (!doc) return;
    try {
      const t = chosen
        ? await edits.change.mutateAsync({ id: chosen.id, body: chosen.system ? { doc } : { name, doc } })
        : await edits.create.mutateAsync({ name, doc });
      setCheck({ ok: true, text: `Saved (version ${t.version}).` });
      setChosen(t);
    } catch (err) {
      say(err);
    }
  };
  const editable = !chosen?.system || me?.role === 'superadmin';
  return (
    <section className="admin">
      <h2>Event templates</h2>
      <div className="split">
        <ul className="plain picklist">
          <li>
            <button className="link" onClick={() => open(null)}>
              + New template
            </button>
          </li>
          {list.isPending && <li className="empty">Loading templates…</li>}
          {list.isError && (
            <li>
              <ErrorBanner what="The templates" error={list.error} retry={() => void list.refetch()} />
            </li>
          )}
          {list.data?.rows.map((t) => (
            <li key={t.id} data-template={t.name}>
              <button className={`link ${chosen?.id === t.id ? 'on' : ''}`} onClick={() => open(t)}>
                {t.name}
              </button>
              {t.system && <span className="badge">system</span>}
              {!t.enabled && <span className="badge">off</span>}
            </li>
          ))}
        </ul>
        <div className="editor">
          {chosen?.system && (
            <p className="meta">
              A system template:{' '}
              {me?.role === 'superadmin'
                ? 'its override may set title and ignore_event only.'
                : 'only a superadmin may override it.'}
            </p>
          )}
          {!chosen?.system && (
            <label>
              Name
              <input name="template-name" value={name} onChange={(e) => setName(e.target.value)} />
            </label>
          )}
          <textarea
            name="template-doc"
            aria-label="Template document (JSON)"
            spellCheck={false}
            rows={16}
            value={text}
            onChange={(e) => {
              setText(e.target.value);
              setCheck(null);
            }}
            readOnly={!editable}
          />
          <div className="actions">
            <button onClick={validate}>Validate</button>
            {editable && <button onClick={save}>{chosen ? 'Save' : 'Create'}</button>}
            {chosen && !chosen.system && (
              <button
                onClick={async () => {
                  try {
                    await edits.change.mutateAsync({ id: chosen.id, body: { enabled: !chosen.enabled } });
                    open(null);
                  } catch (err) {
                    say(err);
                  }
                }}
              >
                {chosen.enabled ? 'Disable' : 'Enable'}
              </button>
            )}
            {/* A system template cannot be deleted (system_template_readonly): not offered. */}
            {chosen && !chosen.system && (
              <ConfirmButton
                name={chosen.name}
                consequence="Events of its detectors are shown without it."
                onConfirm={async () => {
                  await edits.remove.mutateAsync(chosen.id);
                  open(null);
                }}
              />
            )}
          </div>
          {check && (
            <p className={check.ok ? 'note ok' : 'error'} role="alert">
              {check.text}
            </p>
          )}
          {chosen && matches.data && (
            <p className="meta" data-testid="matches">
              Last {matches.data.window_days} days:{' '}
              {matches.data.distinct ? matches.data.detectors.join(', ') : 'no detector seen that the mask matches'}.
            </p>
          )}
        </div>
      </div>
    </section>
  );
}
