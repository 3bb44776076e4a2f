// Guard rails (issue 9), all in one command (`npm run lint`): ESLint, dependency-cruiser (twice:
// module rules, then folder cycles over run-time imports), the 400-line limit and knip. Each runs
// even when an earlier one fails, so one pass shows every violation; the exit code is 1 when any
// failed. dependency-cruiser skips the violations recorded in .dependency-cruiser-known-violations.json
// (docs/architecture.md, "Known debt"): new ones still fail. `--baseline FILE` also writes the full
// report there.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));

const CHECKS = [
  { name: 'eslint (typescript-eslint recommended)', cmd: bin('eslint'), args: ['.'] },
  {
    name: 'dependency-cruiser (.dependency-cruiser.cjs)',
    cmd: bin('depcruise'),
    args: [
      'src',
      'test',
      'bench',
      'scripts',
      'web',
      '--config',
      '.dependency-cruiser.cjs',
      '--output-type',
      'err',
      '--ignore-known',
    ],
  },
  {
    name: 'dependency-cruiser folder cycles, run-time imports (.dependency-cruiser.folders.cjs)',
    cmd: bin('depcruise'),
    args: ['src', '--config', '.dependency-cruiser.folders.cjs', '--output-type', 'err'],
  },
  // The console's component tests (test/web/*.test.tsx) are type-checked with the DOM as the console is.
  {
    name: 'tsc (console component tests: test/web/tsconfig.json)',
    cmd: bin('tsc'),
    args: ['-p', 'test/web/tsconfig.json', '--noEmit'],
  },
  { name: 'file size (scripts/check-file-size.mjs)', cmd: process.execPath, args: ['scripts/check-file-size.mjs'] },
  // One format for the whole repository (issue 21 §2): `npm run format` writes it.
  {
    name: 'prettier (.prettierrc.json; npm run format fixes)',
    cmd: bin('prettier'),
    args: [
      '--check',
      '--log-level',
      'warn',
      '{src,web,test,bench,scripts}/**/*.{ts,tsx,mjs,cjs,js}',
      '*.{ts,js,mjs,cjs}',
    ],
  },
  { name: 'knip (knip.json)', cmd: bin('knip'), args: ['--no-progress', '--no-config-hints'] },
];

const baselineAt = process.argv.indexOf('--baseline');
const baseline = baselineAt > 0 ? process.argv[baselineAt + 1] : null;
const report = [];
let failed = 0;
for (const check of CHECKS) {
  const r = spawnSync(check.cmd, check.args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  const ok = r.status === 0;
  if (!ok) failed++;
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.replaceAll(ROOT, '').trim();
  const section = `== ${check.name}: ${ok ? 'ok' : `FAILED (exit ${r.status ?? r.signal})`}\n${out}\n`;
  report.push(section);
  process.stdout.write(`${section}\n`);
}
const summary = `guard rails: ${CHECKS.length - failed} of ${CHECKS.length} pass`;
console.log(summary);
if (baseline) writeFileSync(baseline, `${report.join('\n')}\n${summary}\n`);
process.exit(failed ? 1 : 0);
