import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import { ApiFailure } from '../../api/failure.js';
import type { NodeCreate, NodeRow } from '../../api/nodes.js';
import { useNodeAdmin, useNodeLicence, useNodes } from '../../hooks/use-nodes.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Field } from '../../components/field.js';
import { Time } from '../../components/time.js';
import { Link } from '../../router.js';

/** The node's licence as it reports it; a disabled node is not asked (the plane lets it go). */
function Licence(props: { node: NodeRow }) {
  const licence = useNodeLicence(props.node.id);
  if (licence.isPending) return <>…</>;
  if (licence.isError) return <span className="meta">not answered</span>;
  const l = licence.data;
  const words = { ok: 'licensed', grace: 'grace period', unlicensed: 'unlicensed', none: 'no licence file' }[l.state];
  return (
    <span className={l.state === 'ok' || l.state === 'none' ? '' : 'note'}>
      {words}
      {l.expires ? `, until ${l.expires}` : ''}
    </span>
  );
}

const STATE_WORDS: Record<string, string> = {
  reachable: 'answering',
  unreachable: 'not answering',
  disabled: 'disabled',
  unknown: 'not polled yet',
};

type FieldName = 'name' | 'url' | 'token' | 'form';
function fieldOf(code: string): FieldName {
  if (code === 'bad_name' || code === 'already_exists') return 'name';
  if (code === 'bad_url' || code === 'blocked_target') return 'url';
  if (code === 'bad_token') return 'token';
  return 'form';
}

/** Register a node: its name, base URL, write token and viewer secret (both write-only: the plane stores them sealed). */
function AddNode(props: { onDone(name: string): void; onCancel(): void }) {
  const { create } = useNodeAdmin();
  const [v, setV] = useState({ name: '', url: '', api_token: '', secret: '', enabled: true });
  const [error, setError] = useState<{ field: FieldName; sentence: string } | null>(null);
  const said = (f: FieldName) => (error?.field === f ? error.sentence : null);
  const submit = async () => {
    const body: NodeCreate = {
      name: v.name.trim(),
      url: v.url.trim(),
      api_token: v.api_token,
      enabled: v.enabled,
      ...(v.secret ? { auth_backend_secret: v.secret } : {}),
    };
    try {
      const node = await create.mutateAsync(body);
      props.onDone(node.name);
    } catch (err) {
      setError({ field: fieldOf(err instanceof ApiFailure ? err.code : ''), sentence: errorSentence(err) });
    }
  };
  return (
    <form
      className="node-form grid-form"
      aria-label="New node"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Field label="Name" error={said('name')}>
        {(f) => (
          <input
            {...f}
            name="node-name"
            value={v.name}
            onChange={(e) => setV({ ...v, name: e.target.value })}
            required
          />
        )}
      </Field>
      <div className="wide">
        <Field label="URL" error={said('url')} hint="The node's base URL, as the plane reaches it.">
          {(f) => (
            <input
              {...f}
              name="node-url"
              value={v.url}
              placeholder="http://10.0.0.20:8081"
              onChange={(e) => setV({ ...v, url: e.target.value })}
              required
            />
          )}
        </Field>
      </div>
      <Field label="Write token" error={said('token')}>
        {(f) => (
          <input
            {...f}
            name="node-token"
            type="password"
            autoComplete="off"
            value={v.api_token}
            onChange={(e) => setV({ ...v, api_token: e.target.value })}
            required
          />
        )}
      </Field>
      <Field label="Viewer secret">
        {(f) => (
          <input
            {...f}
            name="node-secret"
            type="password"
            autoComplete="off"
            value={v.secret}
            placeholder="its auth_backend hs256 secret"
            onChange={(e) => setV({ ...v, secret: e.target.value })}
          />
        )}
      </Field>
      <label className="check">
        <input type="checkbox" checked={v.enabled} onChange={(e) => setV({ ...v, enabled: e.target.checked })} />
        Enabled
      </label>
      <p className="wide meta">
        The write token and the viewer secret are the node&apos;s own (its api_token and auth_backend settings); the
        plane stores them sealed and never shows them again. Without the viewer secret, its cameras cannot be watched.
      </p>
      <div className="actions">
        <button type="submit" disabled={create.isPending}>
          Save node
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      {said('form') && (
        <p className="error" role="alert">
          {said('form')}
        </p>
      )}
    </form>
  );
}

/**
 * The fleet's streaming nodes (superadmin; document 4 §3): each with its state (refreshed every
 * 5 s from the sweeper's polls), version, last answer and licence, a link to its own page; add,
 * enable, disable, and delete (with the name typed; the plane refuses a node that still has cameras).
 */
export function NodesPage() {
  const nodes = useNodes({ refetchInterval: 5_000 });
  const { change, remove } = useNodeAdmin();
  const [adding, setAdding] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const rows = nodes.data?.rows ?? [];
  const toggle = (n: NodeRow) =>
    change.mutate(
      { id: n.id, body: { enabled: !n.enabled } },
      { onError: (err) => setError(errorSentence(err)), onSuccess: () => setError(null) },
    );

  return (
    <section className="admin nodes-page">
      <div className="page-head">
        <h2>Nodes</h2>
        {nodes.isSuccess && !adding && <button onClick={() => setAdding(true)}>Add node</button>}
      </div>
      {notice && <p className="banner">{notice}</p>}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {adding && (
        <AddNode
          onDone={(name) => {
            setAdding(false);
            setNotice(`${name} was added: the plane polls it within seconds.`);
          }}
          onCancel={() => setAdding(false)}
        />
      )}
      {nodes.isPending ? (
        <p className="empty">Loading…</p>
      ) : nodes.isError ? (
        <p className="error" role="alert">
          {errorSentence(nodes.error)}
        </p>
      ) : rows.length === 0 ? (
        !adding && (
          <div className="first-step">
            <h3>Add your first node</h3>
            <p>
              A node runs argus-node next to the cameras. Give its address, its write token and its viewer secret; then
              add cameras on it.
            </p>
          </div>
        )
      ) : (
        <table className="list nodes">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Licence</th>
              <th>Version</th>
              <th>Last answer</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((n) => (
              <tr key={n.id} data-node={n.name}>
                <td className="name">
                  <Link to={`/admin/nodes/${n.id}`}>{n.name}</Link>
                  <div className="meta source">{n.url}</div>
                </td>
                <td data-testid="node-state">{n.enabled ? (STATE_WORDS[n.state] ?? n.state) : 'disabled'}</td>
                <td data-label="Licence">{n.enabled ? <Licence node={n} /> : '-'}</td>
                <td data-label="Version">{n.version ?? '-'}</td>
                <td data-label="Last answer">{n.last_seen_at ? <Time at={n.last_seen_at} /> : 'never'}</td>
                <td className="actions">
                  <button onClick={() => toggle(n)} aria-label={`${n.enabled ? 'Disable' : 'Enable'} ${n.name}`}>
                    {n.enabled ? 'Disable' : 'Enable'}
                  </button>
                  <ConfirmButton
                    name={n.name}
                    consequence="The plane stops supervising it. A node that still serves cameras is refused: move or delete them first."
                    onConfirm={() => remove.mutateAsync(n.id).then(() => setNotice(`${n.name} was deleted.`))}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
