import { lastJson, type Bench } from './bench-spec.js';
import type { Figure } from './harness.js';

/** The console's benches (bench/console/) that `npm run bench` runs: sizes, read beside their targets. */
export const CONSOLE_BENCHES: Bench[] = [
  {
    name: 'console-bundle',
    file: 'console/bundle.js',
    env: {},
    // Each page's JavaScript as brotli and as gzip, beside its target (issue 22) and read against
    // the same files uncompressed: the ratio is what the precompression saves.
    figures(out) {
      const j = lastJson(out) as {
        targets_kb: Record<string, number>;
        pages: Record<string, { br: number; gzip: number; identity: number }>;
      };
      const what: Record<string, string> = { login: 'login page', live: 'live grid to its first frame' };
      const figures: Figure[] = [];
      for (const [page, sums] of Object.entries(j.pages)) {
        const target = j.targets_kb[page]!;
        for (const enc of ['br', 'gzip'] as const) {
          const kb = sums[enc] / 1000;
          figures.push({
            bench: 'console-bundle',
            figure: `${what[page] ?? page} JavaScript, ${enc} (target ≤ ${target} kB)`,
            value: kb,
            unit: `kB, ${kb <= target ? 'within' : 'OVER'} target`,
            baseline: { name: 'uncompressed', value: sums.identity / 1000, unit: 'kB' },
            ratio: 'times',
          });
        }
      }
      return figures;
    },
  },
  {
    name: 'glass-to-glass',
    file: 'console/glass-to-glass.js',
    env: {},
    // Live video's latency in Chromium, a frame's creation at the source to its presentation
    // (issue 23), read against its target: WebSocket + MSE p95 at most 1 s, HLS p95 at most 4 s.
    figures(out) {
      type Stat = { p50_ms: number; p95_ms: number };
      const j = lastJson(out) as { ws_from_capture: Stat; hls: Stat; targets_ms: { ws_p95: number; hls_p95: number } };
      const fig = (what: string, s: Stat, target: number): Figure[] =>
        (['p50', 'p95'] as const).map((q) => ({
          bench: 'glass-to-glass',
          figure: `${what} ${q} (target p95 ≤ ${target} ms)`,
          value: s[`${q}_ms`],
          unit: q === 'p95' ? `ms, ${s.p95_ms <= target ? 'within' : 'OVER'} target` : 'ms',
          baseline: { name: 'target', value: target, unit: 'ms' },
          ratio: 'times',
        }));
      return [
        ...fig('live over WebSocket + MSE, from capture', j.ws_from_capture, j.targets_ms.ws_p95),
        ...fig('live over HLS', j.hls, j.targets_ms.hls_p95),
      ];
    },
  },
];
