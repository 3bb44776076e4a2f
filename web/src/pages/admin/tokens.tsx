import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../../api/client.js';
import { errorSentence } from '../../api/error-words.js';

interface Token {
  id: string;
  name: string;
  rate_limit: number | null;
  enabled: boolean;
  created_at: string;
  last_used_at: string | null;
}

/** A secret shown once (creation, rotation): copy it now, it is never shown again. */
function SecretOnce(props: { name: string; secret: string; onDone(): void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="secret" role="dialog" aria-label="token secret">
      <p>
        The secret of <b>{props.name}</b>. Copy it now: it is not shown again.
      </p>
      <code data-testid="secret">{props.secret}</code>
      <div className="actions">
        <button
          onClick={async () => {
            await navigator.clipboard.writeText(props.secret).then(
              () => setCopied(true),
              () => setCopied(false),
            );
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button onClick={props.onDone}>Done</button>
      </div>
    </div>
  );
}

/** Module tokens of the caller's organisation (administrators): create, rename, rate, rotate, disable, delete. */
export function TokensPage() {
  const qc = useQueryClient();
  const tokens = useQuery({
    queryKey: ['module-tokens'],
    queryFn: () => api<{ rows: Token[] }>('GET', '/api/v1/module-tokens'),
  });
  const [name, setName] = useState('');
  const [rate, setRate] = useState('');
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const done = () => qc.invalidateQueries({ queryKey: ['module-tokens'] });
  const fail = (err: unknown) => setError(errorSentence(err));
  const create = useMutation({
    mutationFn: () =>
      api<Token & { secret: string }>('POST', '/api/v1/module-tokens', {
        name,
        ...(rate ? { rate_limit: Number(rate) } : {}),
      }),
    onSuccess: (t) => {
      setSecret({ name: t.name, secret: t.secret });
      setName('');
      setRate('');
      setError(null);
      void done();
    },
    onError: fail,
  });
  const rotate = useMutation({
    mutationFn: (t: Token) => api<Token & { secret: string }>('POST', `/api/v1/module-tokens/${t.id}/rotate`),
    onSuccess: (t) => {
      setSecret({ name: t.name, secret: t.secret });
      void done();
    },
    onError: fail,
  });
  const patch = useMutation({
    mutationFn: (a: { id: string; body: Partial<Token> }) => api('PATCH', `/api/v1/module-tokens/${a.id}`, a.body),
    onSuccess: done,
    onError: fail,
  });
  const remove = useMutation({
    mutationFn: (id: string) => api('DELETE', `/api/v1/module-tokens/${id}`),
    onSuccess: done,
    onError: fail,
  });

  return (
    <section className="admin">
      <h2>Module tokens</h2>
      <p className="meta">
        An analytics module sends its events and attachments with one of these. A secret is shown once, when the token
        is created or rotated.
      </p>
      {secret && <SecretOnce {...secret} onDone={() => setSecret(null)} />}
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <input
          name="token-name"
          placeholder="Name (e.g. lpr-gate-2)"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
        />
        <input
          name="rate-limit"
          type="number"
          min={1}
          placeholder="Events/s (default)"
          value={rate}
          onChange={(e) => setRate(e.target.value)}
        />
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {tokens.isPending ? (
        <p className="empty">Loading…</p>
      ) : (
        <table className="list">
          <thead>
            <tr>
              <th>Name</th>
              <th>Rate</th>
              <th>Last used</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.data?.rows.map((t) => (
              <tr key={t.id} data-token={t.name}>
                <td>{t.name}</td>
                <td>{t.rate_limit ?? 'default'}</td>
                <td>{t.last_used_at ? new Date(t.last_used_at).toLocaleString() : 'never'}</td>
                <td>{t.enabled ? 'enabled' : 'disabled'}</td>
                <td className="actions">
                  <button onClick={() => rotate.mutate(t)}>Rotate</button>
                  <button onClick={() => patch.mutate({ id: t.id, body: { enabled: !t.enabled } })}>
                    {t.enabled ? 'Disable' : 'Enable'}
                  </button>
                  <button
                    onClick={() => {
                      if (confirm(`Delete ${t.name}? Its module can no longer send.`)) remove.mutate(t.id);
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
