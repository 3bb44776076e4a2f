import { useEffect, useRef, useState } from 'react';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { timeOfDay } from '../lib/text.js';

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

const AXIS_FONT = '12px system-ui, sans-serif';

/** A tick's value, short and readable: 0.25, 3, 1.5k, 2.1M (no 0.30000000000000004, no 12500000). */
export function tickValue(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${+(v / 1e6).toFixed(1)}M`;
  if (a >= 1e4) return `${+(v / 1e3).toFixed(1)}k`;
  if (a >= 100 || Number.isInteger(v)) return String(Math.round(v));
  return String(+v.toFixed(a >= 10 ? 1 : 2));
}

/**
 * A time tick in the user's zone and clock (the profile's choice): hours and minutes, with seconds
 * when the ticks are less than a minute apart (a chart of the first minutes would otherwise read
 * 14:54, 14:54, 14:54).
 */
export const tickTime = (secs: number, step: number) => timeOfDay(secs * 1000, step < 60);

/**
 * A small time series (uPlot): `points` as [epoch ms, value] pairs, redrawn in place when they
 * change. With room for axes: times as hours and minutes, values short (`tickValue`) with the
 * `unit` as the value axis's label, in a 12 px font; the axis is as wide as its longest value.
 */
export function TimeChart(props: {
  points: Array<[number, number]>;
  label: string;
  unit?: string;
  height?: number;
  colour?: string;
}) {
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
    // Without a 2D canvas (a locked-down browser, a DOM without rendering) uPlot would throw on
    // its first draw: the chart says it could not be shown instead.
    if (!document.createElement('canvas').getContext('2d')) {
      setFailed(true);
      return;
    }
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
                    {
                      stroke: '#aab3bf',
                      font: AXIS_FONT,
                      grid: { stroke: '#262c35' },
                      ticks: { stroke: '#262c35' },
                      space: 70,
                      values: (_u, splits, _axis, _space, step) => splits.map((t) => tickTime(t, step)),
                    },
                    {
                      stroke: '#aab3bf',
                      font: AXIS_FONT,
                      labelFont: AXIS_FONT,
                      label: props.unit,
                      labelSize: props.unit ? 18 : 0,
                      grid: { stroke: '#262c35' },
                      ticks: { stroke: '#262c35' },
                      space: 28,
                      values: (_u, splits) => splits.map(tickValue),
                      // As wide as the tick (10 px), its gap (5) and the longest value (8 px a character at 12 px), plus a margin.
                      size: (_u, values) => 20 + 8 * Math.max(2, ...(values ?? []).map((v) => v.length)),
                    },
                  ],
            // Counts and loads read from zero: a flat line near 3 is not drawn as a cliff.
            scales: { y: { range: (_u, min, max) => [Math.min(0, min), max > 0 ? max * 1.15 : 1] } },
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
  }, [props.label, props.unit, props.colour, height]);
  useEffect(() => {
    plot.current?.setData(toData(props.points));
  }, [props.points]);
  return (
    <div
      className="time-chart"
      ref={host}
      // A drawn chart is an image with a name; its failure is text to read.
      role={failed ? undefined : 'img'}
      aria-label={failed ? undefined : props.unit ? `${props.label}, ${props.unit}` : props.label}
    >
      {failed && <p className="empty">The chart could not be shown.</p>}
    </div>
  );
}

const toData = (points: Array<[number, number]>): uPlot.AlignedData => [
  points.map((p) => p[0] / 1000),
  points.map((p) => p[1]),
];
