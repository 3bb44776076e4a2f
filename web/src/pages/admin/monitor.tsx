import { useEffect, useState } from 'react';
import type { LogEntry, LogQuery, NodeFrame, Sample } from '../../api/monitor.js';
import { useFleetSummary, useNodeLicences, usePlaneLog, usePlaneSamples, useStream } from '../../hooks/use-monitor.js';
import { useCameras } from '../../hooks/use-cameras.js';
import { useNodes } from '../../hooks/use-nodes.js';
import { TimeChart } from '../../components/time-chart.js';
import { Empty, ErrorBanner } from '../../components/list-state.js';
import { alertsOf, type Summary } from '../../lib/monitor-alerts.js';
import { Link } from '../../router.js';
import { timeOfDay, when, zoneName } from '../../lib/text.js';

const KEEP = 120;

/** The fleet monitor (superadmin): the summary and its alerts, the nodes' telemetry, the plane's process charts, the log tail. */
export function MonitorPage() {
  const [summary, setSummary] = useState<Summary | null>(null);
  const first = useFleetSummary();
  useEffect(() => {
    if (first.data) setSummary((s) => (s && s.seq >= first.data.seq ? s : first.data));
  }, [first.data]);
  useStream('/api/v1/monitor/fleet/summary/stream', (d) => {
    const f = JSON.parse(d) as Summary;
    setSummary((s) => ({ ...(s ?? {}), ...f }));
  });

  const nodes = useNodes();
  const [frames, setFrames] = useState<Record<string, NodeFrame[]>>({});
  useStream('/api/v1/monitor/nodes', (d) => {
    const f = JSON.parse(d) as NodeFrame;
    setFrames((m) => ({ ...m, [f.node_id]: [...(m[f.node_id] ?? []), f].slice(-KEEP) }));
  });

  const [samples, setSamples] = useState<Sample[]>([]);
  const plane = usePlaneSamples();
  useEffect(() => {
    if (plane.data) setSamples(plane.data.samples);
  }, [plane.data]);
  const lastSeq = plane.data ? (plane.data.samples[plane.data.samples.length - 1]?.seq ?? 0) : null;
  useStream(lastSeq === null ? null : `/api/v1/monitor/plane/stream?last_event_id=${lastSeq}`, (d) => {
    const s = JSON.parse(d) as Sample;
    setSamples((cur) => (cur.some((x) => x.seq === s.seq) ? cur : [...cur, s].slice(-900)));
  });

  const [level, setLevel] = useState<NonNullable<LogQuery['level']>>('warn');
  const [filter, setFilter] = useState({ target: '', q: '' });
  const logFilter: LogQuery = {
    level,
    ...(filter.target ? { target: filter.target } : {}),
    ...(filter.q ? { q: filter.q } : {}),
  };
  // The stream takes the same filter as the page, as a query string.
  const logQuery = new URLSearchParams(logFilter as Record<string, string>).toString();
  const [log, setLog] = useState<LogEntry[]>([]);
  const page = usePlaneLog(logFilter);
  useEffect(() => {
    if (page.data) setLog(page.data.entries);
  }, [page.data]);
  useStream(page.data ? `/api/v1/logs/plane/stream?${logQuery}&after=${page.data.head_seq}` : null, (d) => {
    const e = JSON.parse(d) as LogEntry;
    setLog((cur) => [e, ...cur.filter((x) => x.seq !== e.seq)].slice(0, 500));
  });

  // The summary counts; the cameras' statuses, the nodes' latest frames and (when a licence alert
  // is up) their licences name what it counts.
  const cameras = useCameras({ refetchInterval: 15_000 });
  const nodeIds = nodes.data?.rows.map((n) => n.id) ?? [];
  const licences = useNodeLicences(nodeIds, !!summary && summary.nodes_unlicensed + summary.nodes_grace > 0);
  const latest = Object.fromEntries(Object.entries(frames).map(([id, fs]) => [id, fs[fs.length - 1]!]));
  const alerts = summary
    ? alertsOf(summary, { nodes: nodes.data?.rows, frames: latest, cameras: cameras.data, licences })
    : [];
  return (
    <section className="admin monitor">
      <h2>Fleet monitor</h2>
      {!summary && first.isPending && <Empty>Loading the fleet summary…</Empty>}
      {!summary && first.isError && (
        <ErrorBanner what="The fleet summary" error={first.error} retry={() => void first.refetch()} />
      )}
      {summary && (
        <>
          <div className="tiles" data-testid="summary">
            <div>
              <b>
                {summary.nodes_reachable}/{summary.nodes_total}
              </b>{' '}
              nodes answering
            </div>
            <div>
              <b>
                {summary.cameras_live}/{summary.cameras_total}
              </b>{' '}
              cameras live
            </div>
            <div>
              <b>
                {summary.streams_live}/{summary.streams_total}
              </b>{' '}
              streams live
            </div>
            <div>
              <b>{summary.streams_failing}</b> streams failing
            </div>
          </div>
          {alerts.length ? (
            <ul className="alerts" role="status">
              {alerts.map((a) => (
                <li key={a}>{a}</li>
              ))}
            </ul>
          ) : (
            <p className="note ok" role="status">
              No alert condition in the last sweep ({when(summary.sampled_at, undefined, false)}).
            </p>
          )}
        </>
      )}
      <h3>Nodes</h3>
      {nodes.isPending && <Empty>Loading nodes…</Empty>}
      {nodes.isError && <ErrorBanner what="The nodes" error={nodes.error} retry={() => void nodes.refetch()} />}
      {nodes.data?.rows.length === 0 && <Empty>No node yet: add the first on the Nodes page.</Empty>}
      <table className="list">
        <thead>
          <tr>
            <th>Node</th>
            <th>State</th>
            <th>CPU (cores)</th>
            <th>RSS</th>
            <th>Live streams</th>
            <th className="spark">CPU, last sweeps</th>
          </tr>
        </thead>
        <tbody>
          {nodes.data?.rows.map((n) => {
            const fs = frames[n.id] ?? [];
            const f = fs[fs.length - 1];
            const t = f?.system_telemetry;
            return (
              <tr key={n.id} data-node={n.name}>
                <td>
                  <Link to={`/admin/nodes/${n.id}`}>{n.name}</Link>
                </td>
                <td>
                  {!f ? '…' : f.reachable ? 'answering' : `not answering${f.errors.length ? `: ${f.errors[0]}` : ''}`}
                </td>
                <td>{t ? t.proc_cpu_cores.toFixed(2) : '—'}</td>
                <td>{t ? `${t.rss_mb} MB` : '—'}</td>
                <td>{t ? (t.stream_counts.live ?? 0) : '—'}</td>
                <td className="spark">
                  <TimeChart
                    label={`${n.name} CPU`}
                    unit="cores"
                    height={40}
                    points={fs
                      .filter((x) => x.system_telemetry)
                      .map((x) => [Date.parse(x.attempted_at), x.system_telemetry!.proc_cpu_cores])}
                  />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <h3>This plane process (30 minutes)</h3>
      <div className="charts">
        <div>
          <h4>Resident memory, MB</h4>
          <TimeChart label="Resident memory" unit="MB" points={samples.map((s) => [s.sampled_at_ms, s.rss_mb])} />
        </div>
        <div>
          <h4>CPU, cores</h4>
          <TimeChart
            label="CPU"
            unit="cores"
            colour="#4cc38a"
            points={samples.map((s) => [s.sampled_at_ms, s.proc_cpu_cores])}
          />
        </div>
        <div>
          <h4>Database connections in use</h4>
          <TimeChart
            label="Connections in use"
            unit="connections"
            colour="#f5b84a"
            points={samples.map((s) => [s.sampled_at_ms, s.db_pool_in_use])}
          />
        </div>
        <div>
          <h4>Open files</h4>
          <TimeChart
            label="Open files"
            unit="files"
            colour="#b38cff"
            points={samples.map((s) => [s.sampled_at_ms, s.open_fds])}
          />
        </div>
      </div>
      <h3>
        Log <span className="meta">(times {zoneName()})</span>
      </h3>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          const d = new FormData(e.currentTarget);
          setFilter({ target: String(d.get('log-target') ?? ''), q: String(d.get('log-q') ?? '') });
        }}
      >
        <select
          aria-label="log level"
          value={level}
          onChange={(e) => setLevel(e.target.value as NonNullable<LogQuery['level']>)}
        >
          {['debug', 'info', 'warn', 'error'].map((l) => (
            <option key={l}>{l}</option>
          ))}
        </select>
        <input name="log-target" placeholder="target" defaultValue={filter.target} />
        <input name="log-q" placeholder="words in the message" defaultValue={filter.q} />
        <button type="submit">Filter</button>
      </form>
      <div className="log" data-testid="log">
        {log.map((e) => (
          <div key={e.seq} className={`log-${e.level}`}>
            <time>{timeOfDay(e.ts_ms)}</time> <b>{e.level}</b> <span className="meta">{e.target}</span> {e.message}
          </div>
        ))}
        {!log.length && <p className="empty">No entry at {level} or above.</p>}
      </div>
    </section>
  );
}
