import { useState } from 'react';
import { ListState } from '../../components/list-state.js';
import { errorSentence } from '../../api/error-words.js';
import { ApiFailure } from '../../api/failure.js';
import { useMe, type SignedIn } from '../../api/me.js';
import type { Role, Tag, UserRow } from '../../api/users.js';
import { ConfirmButton } from '../../components/confirm.js';
import { NewPasswordFields } from '../../components/new-password.js';
import { Field } from '../../components/field.js';
import { useCameras } from '../../hooks/use-cameras.js';
import { useGrants, usePeopleEdits, useSetGrants, useSetPassword, useTags, useUsers } from '../../hooks/use-users.js';

/** A refusal's sentence and the field of the add form it concerns (by its code), else none. */
interface Failure {
  text: string;
  field: 'login' | 'password' | 'name' | null;
}
const FIELD_OF: Record<string, Failure['field']> = {
  bad_login: 'login',
  already_exists: 'login',
  reserved_name: 'login',
  bad_password: 'password',
  bad_name: 'name',
};
const failureOf = (err: unknown): Failure => ({
  text: errorSentence(err),
  field: (err instanceof ApiFailure && FIELD_OF[err.code]) || null,
});

/**
 * What the plane would refuse the viewer on `u` (document 1, users.service): only a superadmin
 * acts on a superadmin, and nobody disables or deletes the own account.
 */
const mayAdminister = (me: SignedIn | null, u: UserRow) =>
  !!me && (u.role !== 'superadmin' || me.role === 'superadmin');

/**
 * Another user's new password, typed twice (issue 22: no clear-text prompt): the confirmation is
 * checked before sending; the plane's refusal stays beside the field with what was typed.
 */
function PasswordReset(props: { user: UserRow; onDone(): void }) {
  const set = useSetPassword();
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [mismatch, setMismatch] = useState(false);
  return (
    <form
      className="grants"
      aria-label={`New password for ${props.user.login}`}
      onSubmit={(e) => {
        e.preventDefault();
        setMismatch(password !== again);
        if (password !== again) return;
        set.mutate(
          { id: props.user.id, password },
          { onSuccess: props.onDone, onError: (err) => setError(errorSentence(err)) },
        );
      }}
    >
      <b>New password for {props.user.login}</b>
      <p className="meta">Their sessions end: they sign in again with it.</p>
      <NewPasswordFields
        password={password}
        again={again}
        onPassword={setPassword}
        onAgain={setAgain}
        mismatch={mismatch}
        error={error}
        names={{ password: 'reset-password', confirm: 'reset-confirm' }}
      />
      <div className="actions">
        <button type="submit" disabled={set.isPending}>
          Set password
        </button>
        <button type="button" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
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
  const [error, setError] = useState<Failure | null>(null);
  const [open, setOpen] = useState<{ id: string; what: 'grants' | 'password' } | null>(null);
  const [form, setForm] = useState<{ login: string; password: string; name: string; role: Role }>({
    login: '',
    password: '',
    name: '',
    role: 'user',
  });
  const [tagName, setTagName] = useState('');
  const edits = usePeopleEdits({ onSuccess: () => setError(null), onError: (err) => setError(failureOf(err)) });
  const toggle = (id: string, what: 'grants' | 'password') =>
    setOpen(open?.id === id && open.what === what ? null : { id, what });
  const opened = open && users.data?.rows.find((u) => u.id === open.id);
  const beside = (f: Failure['field']) => (error && error.field === f ? error.text : null);
  return (
    <section className="admin">
      <h2>People</h2>
      <form
        className="inline"
        aria-label="Add person"
        onSubmit={(e) => {
          e.preventDefault();
          // Emptied only once added: a refused form keeps what was typed.
          edits.createUser.mutate(
            { ...form, name: form.name || undefined },
            { onSuccess: () => setForm({ login: '', password: '', name: '', role: 'user' }) },
          );
        }}
      >
        <Field label="Login" error={beside('login')}>
          {(a) => (
            <input
              {...a}
              name="user-login"
              value={form.login}
              onChange={(e) => setForm({ ...form, login: e.target.value })}
              required
            />
          )}
        </Field>
        <Field label="Name" error={beside('name')}>
          {(a) => (
            <input
              {...a}
              name="user-name"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
          )}
        </Field>
        <Field label="Password" error={beside('password')}>
          {(a) => (
            <input
              {...a}
              name="user-password"
              type="password"
              autoComplete="new-password"
              value={form.password}
              onChange={(e) => setForm({ ...form, password: e.target.value })}
              required
            />
          )}
        </Field>
        <Field label="Role">
          {(a) => (
            <select
              {...a}
              name="user-role"
              value={form.role}
              onChange={(e) => setForm({ ...form, role: e.target.value as Role })}
            >
              <option value="user">operator</option>
              <option value="admin">administrator</option>
            </select>
          )}
        </Field>
        <button type="submit">Add person</button>
      </form>
      {error && !error.field && (
        <p className="error" role="alert">
          {error.text}
        </p>
      )}
      <ListState
        what="The people"
        query={users}
        isEmpty={(d) => d.rows.length === 0}
        empty="Nobody yet: add the first person above."
      >
        {(people) => (
          <div className="table-scroll">
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
                {people.rows.map((u) => {
                  const may = mayAdminister(me, u);
                  const self = u.id === me?.id;
                  return (
                    <tr key={u.id} data-user={u.login}>
                      <td>{u.login}</td>
                      <td>
                        <input
                          aria-label={`${u.login} name`}
                          defaultValue={u.name}
                          readOnly={!may}
                          onBlur={(e) => {
                            if (may && e.target.value && e.target.value !== u.name)
                              edits.changeUser.mutate({ id: u.id, body: { name: e.target.value } });
                          }}
                        />
                      </td>
                      <td>{u.role === 'user' ? 'operator' : u.role}</td>
                      <td>{u.disabled ? 'disabled' : 'active'}</td>
                      <td className="actions">
                        {u.role === 'user' && <button onClick={() => toggle(u.id, 'grants')}>Cameras</button>}
                        {may && !self && <button onClick={() => toggle(u.id, 'password')}>Password</button>}
                        {may && !self && (
                          <button
                            onClick={() => edits.changeUser.mutate({ id: u.id, body: { disabled: !u.disabled } })}
                          >
                            {u.disabled ? 'Enable' : 'Disable'}
                          </button>
                        )}
                        {may && !self && (
                          <ConfirmButton
                            name={u.login}
                            consequence="Their sessions end at once and the account is gone."
                            onConfirm={() => edits.deleteUser.mutateAsync(u.id)}
                          />
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
      {opened && open.what === 'grants' && <Grants user={opened} tags={tags.data?.rows ?? []} />}
      {opened && open.what === 'password' && (
        <PasswordReset key={opened.id} user={opened} onDone={() => setOpen(null)} />
      )}
      <h3>Tags</h3>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          edits.createTag.mutate(tagName, { onSuccess: () => setTagName('') });
        }}
      >
        <input
          name="tag-name"
          aria-label="New tag"
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
            <ConfirmButton
              className="link"
              label="delete"
              name={t.name}
              consequence="Operators granted cameras through this tag no longer see them."
              onConfirm={() => edits.deleteTag.mutateAsync(t.id)}
            />
          </li>
        ))}
      </ul>
    </section>
  );
}
