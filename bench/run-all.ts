/**
 * `npm run bench`: every bench at a small size, one after another, then one table of their
 * figures, each beside the in-run baseline it is read against (a COPY of rows, a bare Fastify
 * reply, ffmpeg run directly) as a ratio. The ratios, not the absolute rates, are what compare
 * between machines. Run: BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench
 *   (ONLY=intake,feed,... picks benches; each bench's own variables still apply, see its header)
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchServerUrl, copyBaseline, fastifyBaseline, ffmpegBaseline, printTable, type Figure } from './harness.js';
import { CONNECTIONS, type Baselines, type Bench } from './bench-spec.js';
import { PLANE_BENCHES } from './plane-benches.js';
import { NODE_BENCHES } from './node-benches.js';
import { CONSOLE_BENCHES } from './console-benches.js';

const HERE = dirname(fileURLToPath(import.meta.url));

// In the order they run: the plane's, the node's, then the console's (bundle sizes).
const BENCHES: Bench[] = [...PLANE_BENCHES, ...NODE_BENCHES, ...CONSOLE_BENCHES];

function runBench(bench: Bench): Promise<{ ok: boolean; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(HERE, bench.file)], {
      env: { ...process.env, BENCH_DATABASE_URL: benchServerUrl(), ...bench.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 300_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, out });
    });
  });
}

const only = process.env.ONLY?.split(',');
benchServerUrl(); // fails early, with the variable to set
console.log('baselines: COPY, bare Fastify reply, ffmpeg directly ...');
const baselines: Baselines = {
  copy: await copyBaseline(),
  fastify: await fastifyBaseline(CONNECTIONS),
  ffmpegMs: await ffmpegBaseline(),
};
const figures: Figure[] = [
  { bench: 'baseline', figure: 'COPY into a plain table', value: baselines.copy.perSecond, unit: 'rows/s' },
  {
    bench: 'baseline',
    figure: `bare Fastify reply, ${CONNECTIONS} connections`,
    value: baselines.fastify.perSecond,
    unit: `req/s (p99 ${baselines.fastify.p99Ms} ms)`,
  },
  { bench: 'baseline', figure: 'ffmpeg directly, to a first HLS playlist', value: baselines.ffmpegMs, unit: 'ms' },
];
const failed: string[] = [];
for (const bench of BENCHES) {
  if (only && !only.includes(bench.name)) continue;
  const t0 = performance.now();
  process.stdout.write(`${bench.name} ... `);
  const { ok, out } = await runBench(bench);
  let got: Figure[] = [];
  try {
    if (ok) got = bench.figures(out, baselines);
  } catch {
    /* reported below as a failure */
  }
  if (!ok || got.length === 0) {
    failed.push(bench.name);
    console.log(`failed; its output:\n${out.split('\n').slice(-20).join('\n')}`);
    figures.push({ bench: bench.name, figure: 'failed (output above)', value: null, unit: '' });
    continue;
  }
  console.log(`${((performance.now() - t0) / 1000).toFixed(0)} s`);
  figures.push(...got);
}
console.log(`\nBenches at small sizes, load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}\n`);
console.log(printTable(figures));
if (failed.length) {
  console.log(`\nfailed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
