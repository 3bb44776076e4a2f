import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { errorSentence } from '../../api/error-words.js';

interface Org {
  id: string;
  name: string;
  max_cameras: number | null;
  max_users: number | null;
  attachment_quota_bytes: number | null;
}
const LIMITS: Array<[keyof Org, string]> = [
  ['max_cameras', 'Cameras'],
  ['max_users', 'People'],
  ['attachment_quota_bytes', 'Evidence bytes'],
];

/** Organisations (superadmin): create, rename (on leaving the field), set the quotas (blank: unlimited), delete (its history is archived by the plane). */
export function OrgsPage() {
  const qc = useQueryClient();
  const orgs = useQuery({ queryKey: ['orgs'], queryFn: () => api<{ rows: Org[] }>('GET', '/api/v1/orgs?limit=500') });
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const run = async (f: () => Promise<unknown>) => {
    setError(null);
    try {
      await f();
      await qc.invalidateQueries({ queryKey: ['orgs'] });
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
          void run(() => api('POST', '/api/v1/orgs', { name }));
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
                      void run(() => api('PATCH', `/api/v1/orgs/${o.id}`, { name: e.target.value }));
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
                      if (v !== o[k]) void run(() => api('PATCH', `/api/v1/orgs/${o.id}`, { [k]: v }));
                    }}
                  />
                </td>
              ))}
              <td className="actions">
                <button
                  onClick={() => {
                    if (confirm(`Delete ${o.name} and archive its history?`))
                      void run(() => api('DELETE', `/api/v1/orgs/${o.id}`));
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
