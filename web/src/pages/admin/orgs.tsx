import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import { useOrgEdits, useOrgs } from '../../hooks/use-orgs.js';

const LIMITS: Array<['max_cameras' | 'max_users' | 'attachment_quota_bytes', string]> = [
  ['max_cameras', 'Cameras'],
  ['max_users', 'People'],
  ['attachment_quota_bytes', 'Evidence bytes'],
];

/** Organisations (superadmin): create, rename (on leaving the field), set the quotas (blank: unlimited), delete (its history is archived by the plane). */
export function OrgsPage() {
  const orgs = useOrgs();
  const edits = useOrgEdits();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const run = async (f: () => Promise<unknown>) => {
    setError(null);
    try {
      await f();
    } catch (err) {
      setError(errorSentence(err));
    }
  };
  return (
    <section className="admin">
      <h2>Organisations</h2>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => edits.create.mutateAsync(name));
          setName('');
        }}
      >
        <input name="org-name" placeholder="Name" value={name} onChange={(e) => setName(e.target.value)} required />
        <button type="submit">Add organisation</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <table className="list">
        <thead>
          <tr>
            <th>Name</th>
            {LIMITS.map(([, l]) => (
              <th key={l}>{l}</th>
            ))}
            <th />
          </tr>
        </thead>
        <tbody>
          {orgs.data?.rows.map((o) => (
            <tr key={o.id} data-org={o.name}>
              <td>
                <input
                  aria-label={`${o.name} name`}
                  defaultValue={o.name}
                  onBlur={(e) => {
                    if (e.target.value && e.target.value !== o.name)
                      void run(() => edits.change.mutateAsync({ id: o.id, body: { name: e.target.value } }));
                  }}
                />
              </td>
              {LIMITS.map(([k]) => (
                <td key={k}>
                  <input
                    aria-label={`${o.name} ${k}`}
                    type="number"
                    min={0}
                    defaultValue={o[k] === null ? '' : String(o[k])}
                    onBlur={(e) => {
                      const v = e.target.value === '' ? null : Number(e.target.value);
                      if (v !== o[k]) void run(() => edits.change.mutateAsync({ id: o.id, body: { [k]: v } }));
                    }}
                  />
                </td>
              ))}
              <td className="actions">
                <button
                  onClick={() => {
                    if (confirm(`Delete ${o.name} and archive its history?`))
                      void run(() => edits.remove.mutateAsync(o.id));
                  }}
                >
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
