import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** A small time series (uPlot): `points` as [epoch ms, value] pairs, redrawn in place when they change. */
export function TimeChart(props: { points: Array<[number, number]>; label: string; height?: number; colour?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const height = props.height ?? 120;
  useEffect(() => {
    const el = host.current!;
    plot.current = new uPlot(
      {
        width: el.clientWidth || 300,
        height,
        legend: { show: false },
        series: [{}, { label: props.label, stroke: props.colour ?? '#4ea1ff', width: 1.5, points: { show: false } }],
        // A sparkline (small height) has no axes: the figure beside it says the value.
        axes:
          height < 60
            ? [{ show: false }, { show: false }]
            : [
                { stroke: '#8b95a3', grid: { stroke: '#262c35' } },
                { stroke: '#8b95a3', grid: { stroke: '#262c35' }, size: 44 },
              ],
      },
      [[], []],
      el,
    );
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [props.label, props.colour, height]);
  useEffect(() => {
    plot.current?.setData([props.points.map((p) => p[0] / 1000), props.points.map((p) => p[1])]);
  }, [props.points]);
  return <div className="time-chart" ref={host} aria-label={props.label} />;
}
