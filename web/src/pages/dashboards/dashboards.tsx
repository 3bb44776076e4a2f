import { useEffect, useMemo, useRef, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, sessionToken } from '../../api/client.js';
import { codeSentence, errorSentence, retryAfter } from '../../api/error-words.js';
import { isAdmin, useMe } from '../../api/me.js';
import { readSse } from '../../lib/sse.js';
import { PERIODS, periodRange, type Period } from '../../lib/period.js';
import { Link, navigate, useLocation } from '../../router.js';
import { Table, type Result } from './widgets.js';
import { VIEWS, type Dashboard, type Widget } from './dashboard-model.js';
import { CreateDashboard } from './create-dashboard.js';
import { MetaForm, WidgetForm } from './dashboard-edit.js';
import { ErrorBoundary } from '../../components/error-boundary.js';
import { clip, text } from '../../lib/text.js';

export function DashboardsList() {
  const me = useMe();
  const list = useQuery({
    queryKey: ['dashboards'],
    queryFn: () => api<{ rows: Array<Omit<Dashboard, 'widgets'>> }>('GET', '/api/v1/analytics-dashboards'),
  });
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

/** The definitions of the widgets (a saved report's or the widget's own), as queries over the chosen period. */
async function runWidgets(d: Dashboard, period: Period, tz: string): Promise<Map<string, Result | string>> {
  const reports = new Map<string, Record<string, unknown>>();
  await Promise.all(
    [...new Set(d.widgets.map((w) => w.report_id).filter((x): x is string => !!x))].map(async (id) => {
      reports.set(
        id,
        (await api<{ definition: Record<string, unknown> }>('GET', `/api/v1/analytics-reports/${id}`)).definition,
      );
    }),
  );
  const { from, to } = periodRange(period, tz, Date.now());
  const queries = d.widgets.map((w) => {
    const { period: _p, ...def } = (w.report_id ? reports.get(w.report_id) : w.inline_definition) ?? {};
    return { key: w.id, query: { ...def, from: from.toISOString(), to: to.toISOString(), timezone: tz } };
  });
  const out = new Map<string, Result | string>();
  if (!queries.length) return out;
  const r = await api<{ results: Array<{ key: string; result?: Result; error?: string }> }>(
    'POST',
    '/api/v1/event-analytics/query-batch',
    { queries },
  );
  // A widget's own refusal comes as a bare code (a 4xx: 403 and 5xx fail the whole batch).
  for (const x of r.results) out.set(x.key, x.result ?? codeSentence(x.error ?? 'bad_request', 400));
  return out;
}

export function DashboardView(props: { id: string }) {
  const { search } = useLocation();
  const me = useMe();
  const qc = useQueryClient();
  const board = useQuery({
    queryKey: ['dashboard', props.id],
    queryFn: () => api<Dashboard>('GET', `/api/v1/analytics-dashboards/${props.id}`),
  });
  const params = new URLSearchParams(search);
  const d = board.data;
  const period = (params.get('period') as Period | null) ?? d?.default_period ?? 'last_24h';
  const tz = params.get('tz') ?? d?.timezone ?? 'UTC';
  const [tick, setTick] = useState(0);
  const results = useQuery({
    queryKey: [
      'dashboard-run',
      props.id,
      d?.revision,
      d?.widgets.map((w) => `${w.id}:${w.revision}`).join(),
      period,
      tz,
      tick,
    ],
    enabled: !!d,
    queryFn: () => runWidgets(d!, period, tz),
    // Busy (429 analytics_busy) or past its deadline (503): the plane says when to ask again, so ask then, a few times.
    retry: (n, err) => n < 5 && retryAfter(err) !== null,
    retryDelay: (_n, err) => (retryAfter(err) ?? 1) * 1000,
  });
  // While it waits to retry, or once it gave up, each widget says why in words.
  const failed = results.failureReason ?? results.error;
  const batchProblem = failed ? (results.isError ? errorSentence(failed) : waitingSentence(failed)) : null;
  const setParam = (k: string, v: string) => {
    params.set(k, v);
    navigate(`/dashboards/${props.id}?${params.toString()}`, { replace: true });
  };

  // Live: any new event re-runs the widgets, at most every 5 s.
  const last = useRef(0);
  useEffect(() => {
    if (!d?.live_enabled) return;
    const stop = new AbortController();
    let timer: ReturnType<typeof setTimeout> | null = null;
    void (async () => {
      const head = await api<{ stream_cursor: string }>('GET', '/api/v1/events?limit=1').catch(() => null);
      if (!head || stop.signal.aborted) return;
      await readSse(
        `/api/v1/events/stream?last_event_id=${encodeURIComponent(head.stream_cursor)}`,
        sessionToken() ?? '',
        {
          frame: () => {
            if (timer) return;
            timer = setTimeout(
              () => {
                timer = null;
                last.current = Date.now();
                setTick((t) => t + 1);
              },
              Math.max(0, 5000 - (Date.now() - last.current)),
            );
          },
        },
        stop.signal,
      ).catch(() => {});
    })();
    return () => {
      stop.abort();
      if (timer) clearTimeout(timer);
    };
  }, [d?.live_enabled, d?.id]);

  const [editing, setEditing] = useState(false);
  const [conflict, setConflict] = useState<{ mine: { name: string; description: string }; theirs: Dashboard } | null>(
    null,
  );
  const saveMeta = async (mine: { name: string; description: string }, revision: number) => {
    try {
      await api('PATCH', `/api/v1/analytics-dashboards/${props.id}`, { revision, ...mine });
      setConflict(null);
      setEditing(false);
      await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'stale_revision') {
        // Someone saved in between: show both, lose nothing.
        setConflict({ mine, theirs: await api<Dashboard>('GET', `/api/v1/analytics-dashboards/${props.id}`) });
      } else throw err;
    }
  };
  const removeWidget = async (w: Widget) => {
    await api('DELETE', `/api/v1/analytics-widgets/${w.id}`);
    await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
  };
  const widen = async (w: Widget, by: number) => {
    const width = Math.min(4, Math.max(1, (w.layout?.w ?? 1) + by));
    await api('PATCH', `/api/v1/analytics-widgets/${w.id}`, {
      revision: w.revision,
      layout: { ...(w.layout ?? {}), w: width },
    }).catch(() => {});
    await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
  };
  const move = async (w: Widget, by: number) => {
    await api('PATCH', `/api/v1/analytics-widgets/${w.id}`, {
      revision: w.revision,
      position: Math.max(0, w.position + by),
    }).catch(() => {});
    await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
  };
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
                await qc.invalidateQueries({ queryKey: ['dashboard', props.id] });
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
              style={{ gridColumn: `span ${Math.min(4, Math.max(1, w.layout?.w ?? 1))}` }}
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
                <WidgetForm
                  key={`${w.id}:${w.revision}`}
                  w={w}
                  dashboardId={props.id}
                  onSaved={() => qc.invalidateQueries({ queryKey: ['dashboard', props.id] })}
                />
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
