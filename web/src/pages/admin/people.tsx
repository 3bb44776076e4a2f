import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import { useMe } from '../../api/me.js';
import type { Role, Tag, UserRow } from '../../api/users.js';
import { useCameras } from '../../hooks/use-cameras.js';
import { useGrants, usePeopleEdits, useSetGrants, useTags, useUsers } from '../../hooks/use-users.js';

function useFailure(): [string | null, (err: unknown) => void, () => void] {
  const [error, setError] = useState<string | null>(null);
  return [error, (err) => setError(errorSentence(err)), () => setError(null)];
}

/** Cameras and tags an operator (role user) may see: the grants of document 1, replaced as a whole. */
function Grants(props: { user: UserRow; tags: Tag[] }) {
  const cameras = useCameras();
  const grants = useGrants(props.user.id);
  const save = useSetGrants(props.user.id);
  const [draft, setDraft] = useState<{ camera_ids: string[]; tag_ids: string[] } | null>(null);
  const [saved, setSaved] = useState(false);
  const g = draft ?? grants.data;
  if (!g) return <p className="empty">Loading…</p>;
  const toggle = (k: 'camera_ids' | 'tag_ids', id: string) => {
    setSaved(false);
    setDraft({ ...g, [k]: g[k].includes(id) ? g[k].filter((x) => x !== id) : [...g[k], id] });
  };
  return (
    <div className="grants" data-testid="grants">
      <b>{props.user.login} may see</b>
      <div className="checks">
        {cameras.data?.map((c) => (
          <label key={c.id}>
            <input type="checkbox" checked={g.camera_ids.includes(c.id)} onChange={() => toggle('camera_ids', c.id)} />
            {c.name}
          </label>
        ))}
      </div>
      <div className="checks">
        {props.tags.map((t) => (
          <label key={t.id}>
            <input type="checkbox" checked={g.tag_ids.includes(t.id)} onChange={() => toggle('tag_ids', t.id)} />
            tag {t.name}
          </label>
        ))}
      </div>
      <button
        onClick={async () => {
          await save.mutateAsync({ camera_ids: g.camera_ids, tag_ids: g.tag_ids });
          setSaved(true);
        }}
      >
        Save grants
      </button>
      {saved && <span className="note">Saved.</span>}
    </div>
  );
}

/** People of the organisation (administrators): users with their role and state, an operator's camera grants, the tags. */
export function PeoplePage() {
  const me = useMe();
  const users = useUsers();
  const tags = useTags();
  const [error, fail, clear] = useFailure();
  const [open, setOpen] = useState<string | null>(null);
  const [form, setForm] = useState<{ login: string; password: string; name: string; role: Role }>({
    login: '',
    password: '',
    name: '',
    role: 'user',
  });
  const [tagName, setTagName] = useState('');
  const edits = usePeopleEdits({ onSuccess: clear, onError: fail });
  return (
    <section className="admin">
      <h2>People</h2>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          edits.createUser.mutate({ ...form, name: form.name || undefined });
          setForm({ login: '', password: '', name: '', role: 'user' });
        }}
      >
        <label>
          Login
          <input
            name="user-login"
            value={form.login}
            onChange={(e) => setForm({ ...form, login: e.target.value })}
            required
          />
        </label>
        <label>
          Name
          <input name="user-name" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </label>
        <label>
          Password
          <input
            name="user-password"
            type="password"
            autoComplete="new-password"
            value={form.password}
            onChange={(e) => setForm({ ...form, password: e.target.value })}
            required
          />
        </label>
        <label>
          Role
          <select
            name="user-role"
            value={form.role}
            onChange={(e) => setForm({ ...form, role: e.target.value as Role })}
          >
            <option value="user">operator</option>
            <option value="admin">administrator</option>
          </select>
        </label>
        <button type="submit">Add person</button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <table className="list">
        <thead>
          <tr>
            <th>Login</th>
            <th>Name</th>
            <th>Role</th>
            <th>State</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {users.data?.rows.map((u) => (
            <tr key={u.id} data-user={u.login}>
              <td>{u.login}</td>
              <td>
                <input
                  aria-label={`${u.login} name`}
                  defaultValue={u.name}
                  onBlur={(e) => {
                    if (e.target.value && e.target.value !== u.name)
                      edits.changeUser.mutate({ id: u.id, body: { name: e.target.value } });
                  }}
                />
              </td>
              <td>{u.role === 'user' ? 'operator' : u.role}</td>
              <td>{u.disabled ? 'disabled' : 'active'}</td>
              <td className="actions">
                {u.role === 'user' && <button onClick={() => setOpen(open === u.id ? null : u.id)}>Cameras</button>}
                <button
                  onClick={() => {
                    const pw = prompt(`New password for ${u.login} (at least 8 characters)`);
                    if (pw) edits.changeUser.mutate({ id: u.id, body: { password: pw } });
                  }}
                >
                  Password
                </button>
                {u.id !== me?.id && (
                  <button onClick={() => edits.changeUser.mutate({ id: u.id, body: { disabled: !u.disabled } })}>
                    {u.disabled ? 'Enable' : 'Disable'}
                  </button>
                )}
                {u.id !== me?.id && (
                  <button
                    onClick={() => {
                      if (confirm(`Delete ${u.login}?`)) edits.deleteUser.mutate(u.id);
                    }}
                  >
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && users.data && <Grants user={users.data.rows.find((u) => u.id === open)!} tags={tags.data?.rows ?? []} />}
      <h3>Tags</h3>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          edits.createTag.mutate(tagName);
          setTagName('');
        }}
      >
        <input
          name="tag-name"
          placeholder="New tag"
          value={tagName}
          onChange={(e) => setTagName(e.target.value)}
          required
        />
        <button type="submit">Add tag</button>
      </form>
      <ul className="plain">
        {tags.data?.rows.map((t) => (
          <li key={t.id} data-tag={t.name}>
            <input
              aria-label={`tag ${t.name}`}
              defaultValue={t.name}
              onBlur={(e) => {
                if (e.target.value && e.target.value !== t.name)
                  edits.renameTag.mutate({ id: t.id, name: e.target.value });
              }}
            />
            <button className="link" onClick={() => edits.deleteTag.mutate(t.id)}>
              delete
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
