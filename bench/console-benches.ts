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
];
