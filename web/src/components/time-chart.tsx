import { useEffect, useRef, useState } from 'react';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

// uPlot comes with the first chart drawn, not with the console: the login page and the live grid
// carry none of it (issue 22). One load, shared by every chart after it.
let uPlotModule: Promise<typeof uPlot> | null = null;
const loadUPlot = () =>
  (uPlotModule ??= import('uplot').then(
    (m) => m.default,
    (err: unknown) => {
      uPlotModule = null; // a later chart tries again (a network blip, a redeploy's new hashes)
      throw err;
    },
  ));

/** A small time series (uPlot): `points` as [epoch ms, value] pairs, redrawn in place when they change. */
export function TimeChart(props: { points: Array<[number, number]>; label: string; height?: number; colour?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const points = useRef(props.points);
  points.current = props.points;
  const [failed, setFailed] = useState(false);
  const height = props.height ?? 120;
  useEffect(() => {
    const el = host.current!;
    let gone = false;
    let resize: ResizeObserver | null = null;
    setFailed(false);
    loadUPlot().then(
      (UPlot) => {
        if (gone) return;
        plot.current = new UPlot(
          {
            width: el.clientWidth || 300,
            height,
            legend: { show: false },
            series: [
              {},
              { label: props.label, stroke: props.colour ?? '#4ea1ff', width: 1.5, points: { show: false } },
            ],
            // A sparkline (small height) has no axes: the figure beside it says the value.
            axes:
              height < 60
                ? [{ show: false }, { show: false }]
                : [
                    { stroke: '#8b95a3', grid: { stroke: '#262c35' } },
                    { stroke: '#8b95a3', grid: { stroke: '#262c35' }, size: 44 },
                  ],
          },
          toData(points.current),
          el,
        );
        resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height }));
        resize.observe(el);
      },
      () => {
        if (!gone) setFailed(true);
      },
    );
    return () => {
      gone = true;
      resize?.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [props.label, props.colour, height]);
  useEffect(() => {
    plot.current?.setData(toData(props.points));
  }, [props.points]);
  return (
    <div className="time-chart" ref={host} aria-label={props.label}>
      {failed && <p className="empty">The chart could not be loaded.</p>}
    </div>
  );
}

const toData = (points: Array<[number, number]>): uPlot.AlignedData => [
  points.map((p) => p[0] / 1000),
  points.map((p) => p[1]),
];
