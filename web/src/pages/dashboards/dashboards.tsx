import { useMemo, useState } from 'react';
import { ApiFailure } from '../../api/failure.js';
import { errorSentence, retryAfter } from '../../api/error-words.js';
import { isAdmin, useMe } from '../../api/me.js';
import { ConfirmButton } from '../../components/confirm.js';
import { PERIODS, type Period } from '../../lib/period.js';
import {
  useDashboard,
  useDashboardEdits,
  useDashboards,
  useDeleteDashboard,
  useFreshDashboard,
  useLiveTick,
} from '../../hooks/use-dashboards.js';
import { useDashboardRun } from '../../hooks/use-analytics.js';
import { Link, navigate, useLocation } from '../../router.js';
import { Table } from './widgets.js';
import { VIEWS, type Dashboard, type Widget } from './dashboard-model.js';
import { CreateDashboard } from './create-dashboard.js';
import { MetaForm, WidgetForm } from './dashboard-edit.js';
import { ErrorBoundary } from '../../components/error-boundary.js';
import { clip, fieldsOf, text } from '../../lib/text.js';

export function DashboardsList() {
  const me = useMe();
  const list = useDashboards();
  if (list.isPending) return <p className="empty">Loading…</p>;
  if (list.isError) return <p className="error">The dashboards could not be read.</p>;
  const groups = ['org', 'users', 'admins']
    .map((v) => ({ v, rows: list.data.rows.filter((d) => d.visibility === v) }))
    .filter((g) => g.rows.length);
  const names: Record<string, string> = {
    org: 'Everyone in the organisation',
    users: 'Chosen people',
    admins: 'Administrators',
  };
  return (
    <section className="admin">
      <h2>Dashboards</h2>
      {isAdmin(me) && <CreateDashboard />}
      {!list.data.rows.length && <p className="empty">No dashboard yet.</p>}
      {groups.map((g) => (
        <div key={g.v}>
          <h3>{names[g.v] ?? g.v}</h3>
          <ul className="plain">
            {g.rows.map((d) => (
              <li key={d.id}>
                <Link to={`/dashboards/${d.id}`}>{d.name}</Link> <span className="meta">{d.description}</span>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}

export function DashboardView(props: { id: string }) {
  const { search } = useLocation();
  const me = useMe();
  const board = useDashboard(props.id);
  const edits = useDashboardEdits(props.id);
  const fresh = useFreshDashboard(props.id);
  const remove = useDeleteDashboard();
  const params = new URLSearchParams(search);
  const d = board.data;
  const period = ((params.get('period') ?? d?.default_period) as Period | undefined) ?? 'last_24h';
  const tz = params.get('tz') ?? d?.timezone ?? 'UTC';
  // Live: any new event re-runs the widgets, at most every 5 s.
  const tick = useLiveTick(!!d?.live_enabled, d?.id);
  const results = useDashboardRun(d, period, tz, tick);
  // While it waits to retry, or once it gave up, each widget says why in words.
  const failed = results.failureReason ?? results.error;
  const batchProblem = failed ? (results.isError ? errorSentence(failed) : waitingSentence(failed)) : null;
  const setParam = (k: string, v: string) => {
    params.set(k, v);
    navigate(`/dashboards/${props.id}?${params.toString()}`, { replace: true });
  };

  const [editing, setEditing] = useState(false);
  const [conflict, setConflict] = useState<{ mine: { name: string; description: string }; theirs: Dashboard } | null>(
    null,
  );
  const saveMeta = async (mine: { name: string; description: string }, revision: number) => {
    try {
      await edits.rename.mutateAsync({ revision, ...mine });
      setConflict(null);
      setEditing(false);
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'stale_revision') {
        // Someone saved in between: show both, lose nothing.
        setConflict({ mine, theirs: await fresh() });
      } else throw err;
    }
  };
  const removeWidget = (w: Widget) => edits.remove.mutate(w.id);
  const widen = (w: Widget, by: number) => {
    const layout = fieldsOf(w.layout);
    const width = Math.min(4, Math.max(1, (Number(layout.w) || 1) + by));
    edits.change.mutate({ widget: w.id, body: { revision: w.revision, layout: { ...layout, w: width } } });
  };
  const move = (w: Widget, by: number) =>
    edits.change.mutate({ widget: w.id, body: { revision: w.revision, position: Math.max(0, w.position + by) } });
  const ordered = useMemo(() => [...(d?.widgets ?? [])].sort((a, b) => a.position - b.position), [d]);

  if (board.isPending) return <p className="empty">Loading…</p>;
  if (board.isError || !d) return <p className="empty">No such dashboard, or not yours to see.</p>;
  return (
    <section className="dashboard">
      <div className="dash-head">
        <h2>{d.name}</h2>
        <select aria-label="period" value={period} onChange={(e) => setParam('period', e.target.value)}>
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              {p.replace('_', ' ')}
            </option>
          ))}
        </select>
        <input
          aria-label="time zone"
          defaultValue={tz}
          onBlur={(e) => {
            if (e.target.value && e.target.value !== tz) setParam('tz', e.target.value);
          }}
        />
        {d.live_enabled && <span className="live-dot on">live</span>}
        {isAdmin(me) && <button onClick={() => setEditing(!editing)}>{editing ? 'Done' : 'Edit'}</button>}
        {editing && (
          <ConfirmButton
            name={d.name}
            consequence="Its widgets go with it; the saved reports stay."
            onConfirm={async () => {
              await remove.mutateAsync(d.id);
              navigate('/dashboards', { replace: true });
            }}
          />
        )}
      </div>
      {editing && <MetaForm d={d} onSave={(m) => saveMeta(m, d.revision)} />}
      {conflict && (
        <div className="secret" role="dialog" aria-label="conflict">
          <p>Someone else saved this dashboard while you edited it.</p>
          <p>
            Theirs: <b data-testid="theirs">{conflict.theirs.name}</b> · Yours:{' '}
            <b data-testid="mine">{conflict.mine.name}</b>
          </p>
          <div className="actions">
            <button onClick={() => saveMeta(conflict.mine, conflict.theirs.revision)}>Keep mine</button>
            <button
              onClick={async () => {
                setConflict(null);
                setEditing(false);
                await edits.again();
              }}
            >
              Take theirs
            </button>
          </div>
        </div>
      )}
      <div className="widgets">
        {ordered.map((w) => {
          const r = results.data?.get(w.id) ?? batchProblem ?? undefined;
          const View = VIEWS[w.visualization] ?? Table;
          return (
            <div
              key={w.id}
              className="widget"
              data-widget={w.visualization}
              style={{ gridColumn: `span ${Math.min(4, Math.max(1, Number(fieldsOf(w.layout).w) || 1))}` }}
            >
              <div className="widget-head">
                <h4>{clip(text(w.title), 200)}</h4>
                {editing && (
                  <span className="actions">
                    <button onClick={() => move(w, -1)} aria-label="earlier">
                      ↑
                    </button>
                    <button onClick={() => move(w, 1)} aria-label="later">
                      ↓
                    </button>
                    <button onClick={() => widen(w, -1)} aria-label="narrower">
                      −
                    </button>
                    <button onClick={() => widen(w, 1)} aria-label="wider">
                      +
                    </button>
                    <button onClick={() => removeWidget(w)}>Remove</button>
                  </span>
                )}
              </div>
              {editing && (
                <WidgetForm key={`${w.id}:${w.revision}`} w={w} dashboardId={props.id} onSaved={() => edits.again()} />
              )}
              <ErrorBoundary what="widget" id={w.id} resetKey={r}>
                {r === undefined ? (
                  <p className="empty">…</p>
                ) : typeof r === 'string' ? (
                  <p className="error">{r}</p>
                ) : (
                  <View r={r} />
                )}
              </ErrorBoundary>
            </div>
          );
        })}
      </div>
    </section>
  );
}

/** "Busy: too many analytics queries at once; retrying in 1 s." while the query waits for its retry. */
function waitingSentence(err: unknown): string {
  const s = retryAfter(err);
  return s === null
    ? errorSentence(err)
    : `${errorSentence(err).replace(/\.?\s*Try again in [^.]*\.$/, '')}; retrying in ${Math.max(1, Math.ceil(s))} s.`;
}
