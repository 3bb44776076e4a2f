import { useState } from 'react';
import { ListState } from '../../components/list-state.js';
import { errorSentence } from '../../api/error-words.js';
import { useMe } from '../../api/me.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Field } from '../../components/field.js';
import { useOrgEdits, useOrgs } from '../../hooks/use-orgs.js';

const LIMITS: Array<['max_cameras' | 'max_users' | 'attachment_quota_bytes', string]> = [
  ['max_cameras', 'Cameras'],
  ['max_users', 'People'],
  ['attachment_quota_bytes', 'Evidence bytes'],
];

/**
 * Organisations (superadmin): create, rename (on leaving the field), set the quotas (blank:
 * unlimited), delete with the name typed (its history is archived by the plane). The organisation
 * the superadmin is in is not offered for deletion: the plane refuses it (org_not_empty).
 */
export function OrgsPage() {
  const me = useMe();
  const orgs = useOrgs();
  const edits = useOrgEdits();
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [nameError, setNameError] = useState<string | null>(null);
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
        aria-label="Add organisation"
        onSubmit={(e) => {
          e.preventDefault();
          // Emptied only once created: a refused name stays, its sentence beside it.
          edits.create.mutate(name, {
            onSuccess: () => {
              setName('');
              setNameError(null);
            },
            onError: (err) => setNameError(errorSentence(err)),
          });
        }}
      >
        <Field label="Name" error={nameError}>
          {(a) => (
            <input
              {...a}
              name="org-name"
              placeholder="Name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
            />
          )}
        </Field>
        <button type="submit">Add organisation</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ListState
        what="The organisations"
        query={orgs}
        isEmpty={(d) => d.rows.length === 0}
        empty="No organisation yet."
      >
        {(list) => (
          <div className="table-scroll">
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
                {list.rows.map((o) => (
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
                      {o.id !== me?.org_id && (
                        <ConfirmButton
                          name={o.name}
                          consequence="Its history is archived. It must have no people, cameras or tags left."
                          onConfirm={() => edits.remove.mutateAsync(o.id)}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
    </section>
  );
}
