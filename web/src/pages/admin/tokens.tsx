import { useState } from 'react';
import { ListState } from '../../components/list-state.js';
import { errorSentence } from '../../api/error-words.js';
import type { Token, TokenChange } from '../../api/tokens.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Time } from '../../components/time.js';
import { useTokenEdits, useTokens } from '../../hooks/use-tokens.js';

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
  const tokens = useTokens();
  const edits = useTokenEdits();
  const [name, setName] = useState('');
  const [rate, setRate] = useState('');
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (err: unknown) => setError(errorSentence(err));
  const create = () =>
    edits.create.mutate(
      { name, ...(rate ? { rate_limit: Number(rate) } : {}) },
      {
        onSuccess: (t) => {
          setSecret({ name: t.name, secret: t.secret });
          setName('');
          setRate('');
          setError(null);
        },
        onError: fail,
      },
    );
  const rotate = (t: Token) =>
    edits.rotate.mutate(t.id, { onSuccess: (r) => setSecret({ name: r.name, secret: r.secret }), onError: fail });
  const patch = (id: string, body: TokenChange) => edits.change.mutate({ id, body }, { onError: fail });

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
          create();
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
        <button type="submit" disabled={edits.create.isPending}>
          Create token
        </button>
      </form>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ListState
        what="The module tokens"
        query={tokens}
        isEmpty={(d) => d.rows.length === 0}
        empty="No module token yet: create one for each module that sends events."
      >
        {(list) => (
          <div className="table-scroll">
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
                {list.rows.map((t) => (
                  <tr key={t.id} data-token={t.name}>
                    <td>{t.name}</td>
                    <td>{t.rate_limit ?? 'default'}</td>
                    <td>{t.last_used_at ? <Time at={t.last_used_at} /> : 'never'}</td>
                    <td>{t.enabled ? 'enabled' : 'disabled'}</td>
                    <td className="actions">
                      <button onClick={() => rotate(t)}>Rotate</button>
                      <button onClick={() => patch(t.id, { enabled: !t.enabled })}>
                        {t.enabled ? 'Disable' : 'Enable'}
                      </button>
                      <ConfirmButton
                        name={t.name}
                        consequence="Its module can no longer send."
                        onConfirm={() => edits.remove.mutateAsync(t.id)}
                      />
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
