import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { Link, navigate } from '../../router.js';
import { clip, text, when } from '../../lib/text.js';
import type { Point, Result } from '../../api/analytics.js';

export type { Point, Result } from '../../api/analytics.js';

const COLOURS = [
  '#4ea1ff',
  '#4cc38a',
  '#f5b84a',
  '#ff6b6b',
  '#b38cff',
  '#4fd1c5',
  '#f78fb3',
  '#a3be8c',
  '#e5c07b',
  '#61afef',
  '#c678dd',
  '#98c379',
];

/** The feed of what a chart point counts: the bucket's time range (else the query's) and the group's key. */
export function feedLink(r: Result, p: Pick<Point, 'bucket' | 'key'>): string {
  const q = new URLSearchParams();
  const at = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : NaN);
  // An answer whose times do not parse still links to the feed, only without a range.
  const set = (k: 'from' | 'to', t: number) => {
    if (Number.isFinite(t)) q.set(k, new Date(t).toISOString());
  };
  const bucket = at(p.bucket);
  if (Number.isFinite(bucket)) {
    set('from', bucket);
    set(
      'to',
      Math.min(
        bucket + (r.bucket === 'hour' ? 3_600_000 : 86_400_000),
        Number.isFinite(at(r.to)) ? at(r.to) : Infinity,
      ),
    );
  } else {
    set('from', at(r.from));
    set('to', at(r.to));
  }
  if (typeof p.key === 'string') {
    if (r.group_by === 'detector') q.set('detector', p.key);
    else if (r.group_by === 'camera') q.set('camera', p.key);
    else if (r.group_by === 'category') q.set('category', p.key);
    else if (r.group_by === 'severity') {
      q.set('severity', p.key);
      q.set('severity_max', p.key);
    }
  }
  return `/feed?${q.toString()}`;
}

/** Totals per group (a bucketed result summed over its buckets), largest first. */
function byKey(points: Point[]): Array<{ key: string | null; label: string; value: number }> {
  const m = new Map<string, { key: string | null; label: string; value: number }>();
  for (const p of points) {
    const k = p.key ?? '';
    const e = m.get(k) ?? { key: p.key, label: clip(text(p.label) || text(p.key) || 'all', 120), value: 0 };
    e.value += Number(p.value) || 0;
    m.set(k, e);
  }
  return [...m.values()].sort((a, b) => b.value - a.value);
}

/** A measure's value; anything not a finite number (a newer plane's shape) as a dash. */
const fmt = (v: unknown) => {
  const n = Number(v);
  return typeof v !== 'number' || !Number.isFinite(n) ? '—' : Number.isInteger(n) ? n.toLocaleString() : n.toFixed(2);
};

export function Kpi(props: { r: Result }) {
  const total = props.r.points.reduce((n, p) => n + (Number(p.value) || 0), 0);
  return (
    <Link to={feedLink(props.r, { bucket: null, key: null })} className="kpi">
      {fmt(total)}
    </Link>
  );
}

export function Bars(props: { r: Result }) {
  const rows = byKey(props.r.points);
  const max = Math.max(1, ...rows.map((x) => x.value));
  return (
    <div className="bars">
      {rows.map((x, i) => (
        <Link key={x.key ?? i} to={feedLink(props.r, { bucket: null, key: x.key })} className="bar-row">
          <span className="bar-label">{x.label}</span>
          <span className="bar-track">
            <span
              className="bar-fill"
              style={{ width: `${(x.value / max) * 100}%`, background: COLOURS[i % COLOURS.length] }}
            />
          </span>
          <span className="bar-value">{fmt(x.value)}</span>
        </Link>
      ))}
    </div>
  );
}

export function Donut(props: { r: Result }) {
  const rows = byKey(props.r.points);
  const total = rows.reduce((n, x) => n + x.value, 0) || 1;
  let angle = -Math.PI / 2;
  const arc = (v: number) => {
    const a0 = angle,
      a1 = angle + (v / total) * Math.PI * 2 - 1e-6;
    angle = a1;
    const p = (a: number, r: number) => `${50 + r * Math.cos(a)} ${50 + r * Math.sin(a)}`;
    const large = a1 - a0 > Math.PI ? 1 : 0;
    return `M ${p(a0, 45)} A 45 45 0 ${large} 1 ${p(a1, 45)} L ${p(a1, 28)} A 28 28 0 ${large} 0 ${p(a0, 28)} Z`;
  };
  return (
    <div className="donut">
      <svg viewBox="0 0 100 100" role="img">
        {rows.map((x, i) => (
          <path
            key={x.key ?? i}
            d={arc(x.value)}
            fill={COLOURS[i % COLOURS.length]}
            onClick={() => navigate(feedLink(props.r, { bucket: null, key: x.key }))}
          >
            <title>{`${x.label}: ${fmt(x.value)}`}</title>
          </path>
        ))}
      </svg>
      <ul>
        {rows.map((x, i) => (
          <li key={x.key ?? i}>
            <span className="swatch" style={{ background: COLOURS[i % COLOURS.length] }} />
            <Link to={feedLink(props.r, { bucket: null, key: x.key })}>{x.label}</Link> {fmt(x.value)}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Table(props: { r: Result }) {
  return (
    <table className="list">
      <tbody>
        {props.r.points.map((p, i) => (
          <tr key={i}>
            <td>{p.bucket ? when(p.bucket) : ''}</td>
            <td>
              <Link to={feedLink(props.r, p)}>{clip(text(p.label) || text(p.key) || 'all', 200)}</Link>
            </td>
            <td>{fmt(p.value)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A time series per group (uPlot); a click on the plot opens the feed of the bucket under the cursor (and its series when one is focused). */
export function Line(props: { r: Result }) {
  const host = useRef<HTMLDivElement>(null);
  const { r } = props;
  useEffect(() => {
    const el = host.current!;
    const buckets = [...new Set(r.points.map((p) => p.bucket).filter((b): b is string => !!b))].sort();
    const keys = byKey(r.points).slice(0, COLOURS.length);
    const at = new Map(r.points.map((p) => [`${p.bucket}|${p.key ?? ''}`, p.value]));
    const data: uPlot.AlignedData = [
      buckets.map((b) => Date.parse(b) / 1000),
      ...keys.map((k) => buckets.map((b) => at.get(`${b}|${k.key ?? ''}`) ?? 0)),
    ];
    let focused: number | null = null;
    const plot = new uPlot(
      {
        width: el.clientWidth || 400,
        height: 180,
        legend: { show: keys.length > 1 },
        cursor: { focus: { prox: 16 } },
        // The query's whole range, however few buckets hold events.
        scales: { x: { time: true, range: [Date.parse(r.from) / 1000, Date.parse(r.to) / 1000] } },
        series: [
          {},
          ...keys.map((k, i) => ({
            label: k.label,
            stroke: COLOURS[i % COLOURS.length],
            width: 2,
            points: { show: buckets.length < 60 },
          })),
        ],
        axes: [
          { stroke: '#8b95a3', grid: { stroke: '#262c35' } },
          { stroke: '#8b95a3', grid: { stroke: '#262c35' }, size: 48 },
        ],
        hooks: {
          setSeries: [
            (_u, i) => {
              focused = i;
            },
          ],
        },
      },
      data,
      el,
    );
    const click = () => {
      const idx = plot.cursor.idx;
      if (idx === null || idx === undefined) return;
      const key = focused !== null && focused > 0 ? keys[focused - 1]!.key : keys.length === 1 ? keys[0]!.key : null;
      navigate(feedLink(r, { bucket: buckets[idx]!, key }));
    };
    plot.over.addEventListener('click', click);
    const resize = new ResizeObserver(() => plot.setSize({ width: el.clientWidth, height: 180 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [r]);
  return <div ref={host} className="line" />;
}
