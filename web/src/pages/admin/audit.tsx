import { Fragment, useEffect, useState } from 'react';
import type { AuditRow } from '../../api/audit.js';
import { errorSentence } from '../../api/error-words.js';
import { auditReads, useAuditActions, useAuditFirst, useAuditStream } from '../../hooks/use-audit.js';
import { navigate, useLocation } from '../../router.js';
import { Time } from '../../components/time.js';

const KEYS = ['action', 'object_type', 'q', 'occurred_from', 'occurred_to'] as const;
type Filters = Partial<Record<(typeof KEYS)[number], string>>;
const filtersOf = (search: string): Filters =>
  Object.fromEntries(KEYS.map((k) => [k, new URLSearchParams(search).get(k) ?? '']).filter(([, v]) => v)) as Filters;
const queryOf = (f: Filters) => new URLSearchParams(Object.entries(f).filter(([, v]) => v) as string[][]).toString();

/**
 * The audit log (document 1): filters and free search in the URL (search needs an explicit
 * window of at most 31 days), pages of 100 by the keyset cursor, new records live from the
 * list's stream_cursor when no search or window narrows the view, a record's params, CSV.
 */
export function AuditPage() {
  const { search } = useLocation();
  const f = filtersOf(search);
  const q = queryOf(f);
  const [rows, setRows] = useState<AuditRow[]>([]);
  const [more, setMore] = useState(true);
  const [open, setOpen] = useState<string | null>(null);
  const actions = useAuditActions();
  const first = useAuditFirst(f);
  useEffect(() => {
    if (first.data) {
      setRows(first.data.rows);
      setMore(first.data.rows.length === 100);
    }
  }, [first.data]);
  // Live only for the plain view: a filtered one would have to judge each record the server's way.
  const live = !!first.data && !q;
  // A new record goes on top; `updated` (a session's end written) changes the row shown.
  useAuditStream(live ? first.data!.stream_cursor : null, (r) =>
    setRows((cur) =>
      cur.some((x) => x.id === r.id)
        ? cur.map((x) => (x.id === r.id ? { ...x, ...r, params: x.params } : x))
        : [r, ...cur],
    ),
  );
  const older = async () => {
    const last = rows[rows.length - 1];
    if (!last) return;
    const page = await auditReads.older(f, last);
    setRows((cur) => [...cur, ...page.rows.filter((r) => !cur.some((x) => x.id === r.id))]);
    setMore(page.rows.length === 100);
  };
  const toggle = async (r: AuditRow) => {
    setOpen(open === r.id ? null : r.id);
    if (r.params || open === r.id) return;
    const full = await auditReads.record(r).catch(() => null);
    if (full) setRows((cur) => cur.map((x) => (x.id === r.id ? full : x)));
  };
  const error = first.error ? errorSentence(first.error) : null;
  const set = (k: keyof Filters, v: string) => {
    const n = { ...f, [k]: v || undefined };
    const s = queryOf(n as Filters);
    navigate(`/admin/audit${s ? `?${s}` : ''}`);
  };
  const csv = async () => {
    const blob = await auditReads.csv(f).catch(() => null);
    if (!blob) return;
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'audit.csv';
    a.click();
  };
  return (
    <section className="admin">
      <h2>Audit</h2>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          const d = new FormData(e.currentTarget);
          const n: Filters = {};
          for (const k of KEYS) {
            const v = String(d.get(k) ?? '');
            if (v) n[k] = k.startsWith('occurred') ? new Date(v).toISOString() : v;
          }
          const s = queryOf(n);
          navigate(`/admin/audit${s ? `?${s}` : ''}`);
        }}
      >
        <label>
          Search
          <input name="q" defaultValue={f.q} placeholder="words in any field" key={`q${f.q}`} />
        </label>
        <label>
          Action
          <select name="action" defaultValue={f.action ?? ''} key={`a${f.action}`}>
            <option value="">any</option>
            {actions.data?.rows.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label>
          Object
          <input
            name="object_type"
            defaultValue={f.object_type}
            key={`o${f.object_type}`}
            placeholder="camera, user…"
          />
        </label>
        <label>
          From
          <input
            name="occurred_from"
            type="datetime-local"
            key={`f${f.occurred_from}`}
            defaultValue={f.occurred_from ? f.occurred_from.slice(0, 16) : ''}
          />
        </label>
        <label>
          To
          <input
            name="occurred_to"
            type="datetime-local"
            key={`t${f.occurred_to}`}
            defaultValue={f.occurred_to ? f.occurred_to.slice(0, 16) : ''}
          />
        </label>
        <button type="submit">Apply</button>
        {q && (
          <button type="button" className="link" onClick={() => set('q', '')}>
            Clear search
          </button>
        )}
        <button type="button" onClick={csv}>
          CSV
        </button>
      </form>
      <p className="meta">
        A search looks through at most 31 days from its "from" date. {live ? 'New records appear as they happen.' : ''}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {/* Focusable: on a phone the table scrolls sideways, and the keyboard must reach that too. */}
      <table className="list" tabIndex={0} aria-label="Audit records">
        <thead>
          <tr>
            <th>When</th>
            <th>Who</th>
            <th>Action</th>
            <th>Object</th>
            <th>From</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <Fragment key={r.id}>
              <tr data-audit={r.id} className="clickable" onClick={() => toggle(r)}>
                <td>
                  <Time at={r.occurred_at} />
                </td>
                <td>
                  {r.actor_name} <span className="meta">{r.actor_role}</span>
                </td>
                <td>{r.action}</td>
                <td>
                  {r.object_type} {r.object_name}
                </td>
                <td>{r.ip}</td>
              </tr>
              {open === r.id && (
                <tr>
                  <td colSpan={5}>
                    <pre className="params" data-testid="params">
                      {r.params ? JSON.stringify(r.params, null, 2) : 'Loading…'}
                    </pre>
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {more && rows.length > 0 && <button onClick={older}>Older</button>}
    </section>
  );
}
