/**
 * What `npm run bench` (run-all.ts) knows of a bench: its file, its small sizes, and how its
 * figures are read from what it printed, beside the in-run baselines. Shared by the plane's and
 * the node's lists (plane-benches.ts, node-benches.ts).
 */
import type { Figure, Rate } from './harness.js';

/** Clients of a load bench, and of the bare Fastify reply it is read against. */
export const CONNECTIONS = 8;

export interface Baselines {
  copy: Rate;
  fastify: Rate;
  ffmpegMs: number;
}
export interface Bench {
  name: string;
  file: string;
  /** Small sizes: the run takes minutes, not hours. */
  env: Record<string, string>;
  figures(out: string, b: Baselines): Figure[];
}

/** The last JSON object a bench printed. */
export function lastJson(out: string): any {
  const start = out.lastIndexOf('\n{');
  return JSON.parse(out.slice(start >= 0 ? start + 1 : out.indexOf('{')));
}
/** The cells of the markdown row whose first cell starts with `label`. */
export function row(out: string, label: string): string[] | null {
  const line = out.split('\n').find((l) => l.startsWith(`| ${label}`));
  return line
    ? line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim())
    : null;
}
export const num = (s: string | undefined): number | null =>
  s === undefined || s === '-' || Number.isNaN(Number(s)) ? null : Number(s);

export const copyBase = (b: Baselines) => ({ name: 'COPY', value: b.copy.perSecond, unit: 'rows/s' });
export const replyRate = (b: Baselines) => ({
  name: `bare Fastify reply, ${CONNECTIONS} connections`,
  value: b.fastify.perSecond,
  unit: 'req/s',
});
export const replyP99 = (b: Baselines) => ({
  name: 'bare Fastify reply p99',
  value: b.fastify.p99Ms ?? NaN,
  unit: 'ms',
});
