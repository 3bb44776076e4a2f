import { useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, sessionToken } from '../../api/client.js';
import { isAdmin, useMe } from '../../api/me.js';
import { readSse } from '../../lib/sse.js';
import { PERIODS, periodRange, type Period } from '../../lib/period.js';
import { Link, navigate, useLocation } from '../../router.js';
import { Bars, Donut, Kpi, Line, Table, type Result } from './widgets.js';
import { ErrorBoundary } from '../../components/error-boundary.js';
import { clip, text } from '../../lib/text.js';

interface Widget { id: string; title: string; visualization: string; report_id: string | null; inline_definition: Record<string, unknown> | null; layout: { w?: number } | null; position: number; revision: number }
interface Dashboard { id: string; name: string; description: string; timezone: string; default_period: Period; live_enabled: boolean; visibility: string; revision: number; widgets: Widget[] }

const VIEWS: Record<string, (p: { r: Result }) => React.ReactElement> = { kpi: Kpi, line: Line, bar: Bars, donut: Donut, table: Table };

/** A new dashboard (administrators): name, audience (everyone, administrators, or chosen operators), period, zone, live. */
function CreateDashboard() {
  const qc = useQueryClient();
  const users = useQuery({ queryKey: ['users'], queryFn: () => api<{ rows: Array<{ id: string; login: string; role: string; disabled: boolean }> }>('GET', '/api/v1/users?limit=500') });
  const [f, setF] = useState({ name: '', visibility: 'org', default_period: 'last_24h', timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC', live_enabled: true });
  const [audience, setAudience] = useState<string[]>([]);
  const [error, setError] = useState<string | null>(null);
  return (
    <form className="inline" onSubmit={async (e) => {
      e.preventDefault(); setError(null);
      try {
        const d = await api<{ id: string }>('POST', '/api/v1/analytics-dashboards', { ...f, ...(f.visibility === 'users' ? { audience_user_ids: audience } : {}) });
        await qc.invalidateQueries({ queryKey: ['dashboards'] });
        navigate(`/dashboards/${d.id}`);
      } catch (err) { setError(err instanceof ApiFailure ? err.code : 'the plane did not answer'); }
    }}>
      <label>New dashboard<input name="new-dashboard" value={f.name} onChange={(e) => setF({ ...f, name: e.target.value })} required /></label>
      <label>Seen by<select name="visibility" value={f.visibility} onChange={(e) => setF({ ...f, visibility: e.target.value })}><option value="org">everyone</option><option value="admins">administrators</option><option value="users">chosen operators</option></select></label>
      {f.visibility === 'users' && <label>Operators<select name="audience" multiple value={audience} onChange={(e) => setAudience([...e.target.selectedOptions].map((o) => o.value))}>
        {users.data?.rows.filter((u) => u.role === 'user' && !u.disabled).map((u) => <option key={u.id} value={u.id}>{u.login}</option>)}</select></label>}
      <label>Period<select name="default_period" value={f.default_period} onChange={(e) => setF({ ...f, default_period: e.target.value })}>{PERIODS.map((p) => <option key={p}>{p}</option>)}</select></label>
      <label>Time zone<input name="timezone" value={f.timezone} onChange={(e) => setF({ ...f, timezone: e.target.value })} /></label>
      <label className="row-label"><input type="checkbox" checked={f.live_enabled} onChange={(e) => setF({ ...f, live_enabled: e.target.checked })} />live</label>
      <button type="submit">Create</button>
      {error && <span className="error" role="alert">{error}</span>}
    </form>
  );
}

export function DashboardsList() {
  const me = useMe();
  const list = useQuery({ queryKey: ['dashboards'], queryFn: () => api<{ rows: Array<Omit<Dashboard, 'widgets'>> }>('GET', '/api/v1/analytics-dashboards') });
  if (list.isPending) return <p className="empty">Loading…</p>;
  if (list.isError) return <p className="error">The dashboards could not be read.</p>;
  const groups = ['org', 'users', 'admins'].map((v) => ({ v, rows: list.data.rows.filter((d) => d.visibility === v) })).filter((g) => g.rows.length);
  const names: Record<string, string> = { org: 'Everyone in the organisation', users: 'Chosen people', admins: 'Administrators' };
  return (
    <section className="admin">
      <h2>Dashboards</h2>
      {isAdmin(me) && <CreateDashboard />}
      {!list.data.rows.length && <p className="empty">No dashboard yet.</p>}
      {groups.map((g) => (
        <div key={g.v}><h3>{names[g.v] ?? g.v}</h3>
          <ul className="plain">{g.rows.map((d) => <li key={d.id}><Link to={`/dashboards/${d.id}`}>{d.name}</Link> <span className="meta">{d.description}</span></li>)}</ul>
        </div>
      ))}
    </section>
  );
}

/** The definitions of the widgets (a saved report's or the widget's own), as queries over the chosen period. */
async function runWidgets(d: Dashboard, period: Period, tz: string): Promise<Map<string, Result | string>> {
  const reports = new Map<string, Record<string, unknown>>();
  await Promise.all([...new Set(d.widgets.map((w) => w.report_id).filter((x): x is string => !!x))].map(async (id) => {
    reports.set(id, (await api<{ definition: Record<string, unknown> }>('GET', `/api/v1/analytics-reports/${id}`)).definition);
  }));
  const { from, to } = periodRange(period, tz, Date.now());
  const queries = d.widgets.map((w) => {
    const { period: _p, ...def } = (w.report_id ? reports.get(w.report_id) : w.inline_definition) ?? {};
    return { key: w.id, query: { ...def, from: from.toISOString(), to: to.toISOString(), timezone: tz } };
  });
  const out = new Map<string, Result | string>();
  if (!queries.length) return out;
  const r = await api<{ results: Array<{ key: string; result?: Result; error?: string }> }>('POST', '/api/v1/event-analytics/query-batch', { queries });
  for (const x of r.results) out.set(x.key, x.result ?? x.error ?? 'error');
  return out;
}

export function DashboardView(props: { id: string }) {
  const { search } = useLocation();
  const me = useMe();
  const qc = useQueryClient();
  const board = useQuery({ queryKey: ['dashboard', props.id], queryFn: () => api<Dashboard>('GET', `/api/v1/analytics-dashboards/${props.id}`) });
  const params = new URLSearchParams(search);
  const d = board.data;
  const period = (params.get('period') as Period | null) ?? d?.default_period ?? 'last_24h';
  const tz = params.get('tz') ?? d?.timezone ?? 'UTC';
  const [tick, setTick] = useState(0);
  const results = useQuery({ queryKey: ['dashboard-run', props.id, d?.revision, d?.widgets.map((w) => `${w.id}:${w.revision}`).join(), period, tz, tick], enabled: !!d, queryFn: () => runWidgets(d!, period, tz) });
  const setParam = (k: string, v: string) => { params.set(k, v); navigate(`/dashboards/${props.id}?${params.toString()}`, { replace: true }); };

  // Live: any new event re-runs the widgets, at most every 5 s.
  const last = useRef(0);
  useEffect(() => {
    if (!d?.live_enabled) return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    void (async () => {
      const head = await api<{ stream_cursor: string }>('GET', '/api/v1/events?limit=1').catch(() => null);
      if (!head || stop.signal.aborted) return;
      await readSse(`/api/v1/events/stream?last_event_id=${encodeURIComponent(head.stream_cursor)}`, sessionToken() ?? '', {
        frame: () => {
          if (timer) return;
          timer = setTimeout(() => { timer = null; last.current = Date.now(); setTick((t) => t + 1); }, Math.max(0, 5000 - (Date.now() - last.current)));
        },
      }, stop.signal).catch(() => {});
    })();
    return () => { stop.abort(); if (timer) clearTimeout(timer); };
  }, [d?.live_enabled, d?.id]);

  const [editing, setEditing] = useState(false);
  const [conflict, setConflict] = useState<{ mine: { name: string; description: string }; theirs: Dashboard } | null>(null);
  const saveMeta = async (mine: { name: string; description: string }, revision: number) => {
    try {
      await api('PATCH', `/api/v1/analytics-dashboards/${props.id}`, { revision, ...mine });
      setConflict(null); setEditing(false);
      await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'stale_revision') {
        // Someone saved in between: show both, lose nothing.
        setConflict({ mine, theirs: await api<Dashboard>('GET', `/api/v1/analytics-dashboards/${props.id}`) });
      } else throw err;
    }
  };
  const removeWidget = async (w: Widget) => { await api('DELETE', `/api/v1/analytics-widgets/${w.id}`); await qc.invalidateQueries({ queryKey: ['dashboard', props.id] }); };
  const widen = async (w: Widget, by: number) => {
    const width = Math.min(4, Math.max(1, (w.layout?.w ?? 1) + by));
    await api('PATCH', `/api/v1/analytics-widgets/${w.id}`, { revision: w.revision, layout: { ...(w.layout ?? {}), w: width } }).catch(() => {});
    await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
  };
  const move = async (w: Widget, by: number) => {
    await api('PATCH', `/api/v1/analytics-widgets/${w.id}`, { revision: w.revision, position: Math.max(0, w.position + by) }).catch(() => {});
    await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
  };
  const ordered = useMemo(() => [...(d?.widgets ?? [])].sort((a, b) => a.position - b.position), [d]);

  if (board.isPending) return <p className="empty">Loading…</p>;
  if (board.isError || !d) return <p className="empty">No such dashboard, or not yours to see.</p>;
  return (
    <section className="dashboard">
      <div className="dash-head">
        <h2>{d.name}</h2>
        <select aria-label="period" value={period} onChange={(e) => setParam('period', e.target.value)}>{PERIODS.map((p) => <option key={p} value={p}>{p.replace('_', ' ')}</option>)}</select>
        <input aria-label="time zone" defaultValue={tz} onBlur={(e) => { if (e.target.value && e.target.value !== tz) setParam('tz', e.target.value); }} />
        {d.live_enabled && <span className="live-dot on">live</span>}
        {isAdmin(me) && <button onClick={() => setEditing(!editing)}>{editing ? 'Done' : 'Edit'}</button>}
      </div>
      {editing && <MetaForm d={d} onSave={(m) => saveMeta(m, d.revision)} />}
      {conflict && (
        <div className="secret" role="dialog" aria-label="conflict">
          <p>Someone else saved this dashboard while you edited it.</p>
          <p>Theirs: <b data-testid="theirs">{conflict.theirs.name}</b> · Yours: <b data-testid="mine">{conflict.mine.name}</b></p>
          <div className="actions">
            <button onClick={() => saveMeta(conflict.mine, conflict.theirs.revision)}>Keep mine</button>
            <button onClick={async () => { setConflict(null); setEditing(false); await qc.invalidateQueries({ queryKey: ['dashboard', props.id] }); }}>Take theirs</button>
          </div>
        </div>
      )}
      <div className="widgets">
        {ordered.map((w) => {
          const r = results.data?.get(w.id);
          const View = VIEWS[w.visualization] ?? Table;
          return (
            <div key={w.id} className="widget" data-widget={w.visualization} style={{ gridColumn: `span ${Math.min(4, Math.max(1, w.layout?.w ?? 1))}` }}>
              <div className="widget-head"><h4>{clip(text(w.title), 200)}</h4>
                {editing && <span className="actions"><button onClick={() => move(w, -1)} aria-label="earlier">↑</button><button onClick={() => move(w, 1)} aria-label="later">↓</button>
                  <button onClick={() => widen(w, -1)} aria-label="narrower">−</button><button onClick={() => widen(w, 1)} aria-label="wider">+</button><button onClick={() => removeWidget(w)}>Remove</button></span>}
              </div>
              {editing && <WidgetForm key={`${w.id}:${w.revision}`} w={w} dashboardId={props.id} onSaved={() => qc.invalidateQueries({ queryKey: ['dashboard', props.id] })} />}
              <ErrorBoundary what="widget" id={w.id} resetKey={r}>
                {r === undefined ? <p className="empty">…</p> : typeof r === 'string' ? <p className="error">{r}</p> : <View r={r} />}
              </ErrorBoundary>
            </div>
          );
        })}
      </div>
    </section>
  );
}

/**
 * A widget's title, visualization and, for an inline one, its definition as JSON; saved on its
 * revision. When another edit came first (409 stale_revision), both are shown: keep mine (saved
 * on the new revision) or take theirs; nothing typed is lost.
 */
function WidgetForm(props: { w: Widget; dashboardId: string; onSaved(): void }) {
  const [title, setTitle] = useState(props.w.title);
  const [vis, setVis] = useState(props.w.visualization);
  const [def, setDef] = useState(props.w.inline_definition ? JSON.stringify(props.w.inline_definition, null, 1) : '');
  const [error, setError] = useState<string | null>(null);
  const [theirs, setTheirs] = useState<Widget | null>(null);
  const save = async (revision: number) => {
    setError(null);
    let inline: unknown;
    if (props.w.inline_definition) { try { inline = JSON.parse(def); } catch { setError('Not JSON.'); return; } }
    try {
      await api('PATCH', `/api/v1/analytics-widgets/${props.w.id}`, { revision, title, visualization: vis, ...(inline ? { inline_definition: inline } : {}) });
      setTheirs(null);
      props.onSaved();
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'stale_revision') {
        const d = await api<Dashboard>('GET', `/api/v1/analytics-dashboards/${props.dashboardId}`);
        setTheirs(d.widgets.find((x) => x.id === props.w.id) ?? null);
      } else setError(err instanceof ApiFailure ? err.code : 'the plane did not answer');
    }
  };
  return (
    <form className="widget-form" onSubmit={(e) => { e.preventDefault(); void save(props.w.revision); }}>
      <input aria-label="widget title" value={title} onChange={(e) => setTitle(e.target.value)} />
      <select aria-label="visualization" value={vis} onChange={(e) => setVis(e.target.value)}>{Object.keys(VIEWS).map((v) => <option key={v}>{v}</option>)}</select>
      {props.w.inline_definition && <textarea aria-label="definition" rows={4} value={def} onChange={(e) => setDef(e.target.value)} />}
      <button type="submit">Apply</button>
      {error && <span className="error" role="alert">{error}</span>}
      {theirs && (
        <div className="secret" role="dialog" aria-label="widget conflict">
          <p>Someone else changed this widget meanwhile. Theirs: <b data-testid="widget-theirs">{theirs.title}</b> ({theirs.visualization}) · Yours: <b data-testid="widget-mine">{title}</b> ({vis})</p>
          <div className="actions">
            <button type="button" onClick={() => void save(theirs.revision)}>Keep mine</button>
            <button type="button" onClick={() => { setTheirs(null); props.onSaved(); }}>Take theirs</button>
          </div>
        </div>
      )}
    </form>
  );
}

function MetaForm(props: { d: Dashboard; onSave(m: { name: string; description: string }): Promise<void> }) {
  const [name, setName] = useState(props.d.name);
  const [description, setDescription] = useState(props.d.description);
  return (
    <form className="inline" onSubmit={(e) => { e.preventDefault(); void props.onSave({ name, description }); }}>
      <label>Name<input name="dash-name" value={name} onChange={(e) => setName(e.target.value)} /></label>
      <label>Description<input name="dash-description" value={description} onChange={(e) => setDescription(e.target.value)} /></label>
      <button type="submit">Save</button>
    </form>
  );
}
