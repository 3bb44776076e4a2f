import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import type { LogLevel, NodeLevel } from '../../api/nodes.js';
import { useNode, useNodeEdits, useNodes } from '../../hooks/use-nodes.js';
import { Time } from '../../components/time.js';

/**
 * One node through the plane (superadmin; document 1 per-node routes): its licence, its log
 * level (changed through its globals), its live viewers, its log ring by level, its
 * configuration versions with a rollback to any of them, and its configuration as it runs (reading it is audited: the text holds secrets, so it is shown on demand).
 */
export function NodePage(props: { id: string }) {
  const nodes = useNodes();
  const node = nodes.data?.rows.find((n) => n.id === props.id);
  const [level, setLevel] = useState<LogLevel>('info');
  const { licence, logging, sessions, logs, history } = useNode(props.id, level);
  const edits = useNodeEdits(props.id);
  const [config, setConfig] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (err: unknown) => setError(errorSentence(err));
  return (
    <section className="admin">
      <h2>
        {node?.name ?? 'Node'} <span className="meta">{node?.url}</span>
      </h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <p className="meta" data-testid="licence">
        Licence:{' '}
        {licence.data
          ? `${licence.data.state}${licence.data.licensee ? `, ${licence.data.licensee}` : ''}${licence.data.expires ? `, until ${licence.data.expires}` : ''}`
          : licence.isError
            ? 'not answered'
            : '…'}
      </p>
      <form
        className="inline"
        onSubmit={async (e) => {
          e.preventDefault();
          const v = new FormData(e.currentTarget).get('node-level');
          try {
            // One of the select's options; the node refuses any other (400).
            await edits.setLevel.mutateAsync({ level: v } as NodeLevel);
          } catch (err) {
            fail(err);
          }
        }}
      >
        <label>
          Node log level
          <select name="node-level" key={logging.data?.level} defaultValue={logging.data?.level}>
            {['debug', 'info', 'warn', 'error'].map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </label>
        <button type="submit">Set</button>
      </form>
      <h3>Viewers now ({sessions.data?.rows.length ?? 0})</h3>
      <table className="list">
        <tbody>
          {sessions.data?.rows.map((s, i) => (
            <tr key={i}>
              <td>{String(s.stream)}</td>
              <td>{String(s.protocol)}</td>
              <td>{String(s.client_ip)}</td>
              <td>{String(s.subject_name ?? '')}</td>
              <td>{Math.round(Number(s.connected_ms) / 1000)} s</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>
        Log{' '}
        <select aria-label="node log level filter" value={level} onChange={(e) => setLevel(e.target.value as LogLevel)}>
          {(['debug', 'info', 'warn', 'error'] satisfies LogLevel[]).map((l) => (
            <option key={l}>{l}</option>
          ))}
        </select>
      </h3>
      <div className="log" data-testid="node-log" tabIndex={0} role="log" aria-label="Node log">
        {[...(logs.data?.entries ?? [])].reverse().map((e) => (
          <div key={e.seq} className={`log-${e.level}`}>
            <Time at={e.ts_ms} date={false} /> <b>{e.level}</b> <span className="meta">{e.target}</span> {e.message}
          </div>
        ))}
      </div>
      <h3>Configuration versions</h3>
      <table className="list" data-testid="history">
        <tbody>
          {[...(history.data?.rows ?? [])].reverse().map((h) => (
            <tr key={h.epoch} data-epoch={h.epoch}>
              <td>{h.epoch}</td>
              <td>
                <Time at={h.ts_ms} />
              </td>
              <td>{h.via}</td>
              <td>{h.actor}</td>
              <td className="meta">{h.hash.slice(0, 12)}</td>
              <td className="actions">
                {h.epoch !== history.data!.rows[history.data!.rows.length - 1]!.epoch && (
                  <button
                    onClick={async () => {
                      if (!confirm(`Return the node to version ${h.epoch}? It is applied as a new version.`)) return;
                      try {
                        const r = await edits.rollBack.mutateAsync(h.epoch);
                        setError(null);
                        setNote(`Version ${h.epoch} applied as version ${r.epoch}.`);
                      } catch (err) {
                        fail(err);
                      }
                    }}
                  >
                    Roll back to this
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {note && (
        <p className="note ok" role="status">
          {note}
        </p>
      )}
      <h3>Configuration</h3>
      {config === null ? (
        <button
          onClick={async () => {
            try {
              setConfig((await edits.config.mutateAsync()).text);
            } catch (err) {
              fail(err);
            }
          }}
        >
          Show the configuration (audited)
        </button>
      ) : (
        <pre className="log" data-testid="node-config">
          {config}
        </pre>
      )}
    </section>
  );
}
