/**
 * The cost of the log ring on the plane's logging path: pino with the plane's options (field
 * redaction, request summary) writing request-shaped lines to a null writer (the baseline: what
 * logging cost before the ring) against the plane's logger,
 * whose sink scrubs every line, parses it and captures it in the 4096-entry ring. Also the time
 * of one page of a full ring (GET /api/v1/logs/plane reads it: filter, reverse, cut).
 * Prints a table and a JSON line; no timed assertions.
 * Run: npm run build && node dist/bench/plane/log-ring.js   Knobs: LINES (200000), PAGES (2000).
 */
import pino from 'pino';
import { makePlaneLogger, planeLoggerOptions } from '../../src/plane/logs/plane-logger.js';
import { ringOf } from '../../src/common/log-sink.js';

const LINES = Number(process.env.LINES ?? 200_000);
const PAGES = Number(process.env.PAGES ?? 2000);
const nul = { write: (_s: string) => true };

function lineRate(log: pino.Logger): number {
  const req = {
    method: 'GET',
    url: '/api/v1/cameras?org=7d1c6a4e-3a55-4c0a-9b7e-1f0c6f3b5a11&limit=100',
    host: '127.0.0.1:8080',
    remoteAddress: '127.0.0.1',
    remotePort: 51234,
  };
  const child = log.child({ part: 'sweeper' });
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) {
    if (i % 4 === 3)
      child.warn(
        { node_id: 'a3f1c2d4-0000-4000-8000-000000000001', err: 'connect ECONNREFUSED 10.0.0.5:8081' },
        'node poll failed',
      );
    else log.info({ reqId: `req-${i}`, req }, 'incoming request');
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return LINES / (ms / 1000);
}

// Warm both paths once so the JIT does not favour the second.
lineRate(pino(planeLoggerOptions('info'), nul));
lineRate(makePlaneLogger('info', nul));
const baseline = lineRate(pino(planeLoggerOptions('info'), nul));
const ringLog = makePlaneLogger('info', nul);
const withRing = lineRate(ringLog);

const ring = ringOf(ringLog);
const t0 = process.hrtime.bigint();
let n = 0;
for (let i = 0; i < PAGES; i++) n += ring.page({ level: 'warn', q: 'ECONNREFUSED' }, 0, 500).length;
const pageUs = Number(process.hrtime.bigint() - t0) / 1e3 / PAGES;

const rows = [
  ['plane pino options to a null writer (baseline)', Math.round(baseline), 'lines/s'],
  ['plane logger: scrub + ring capture', Math.round(withRing), 'lines/s'],
  ['ratio ring / baseline', Number((withRing / baseline).toFixed(2)), ''],
  ['page of a full ring (level=warn, q, limit 500)', Number(pageUs.toFixed(1)), 'µs'],
];
console.log('| figure | value | unit |\n|---|---|---|');
for (const [f, v, u] of rows) console.log(`| ${f} | ${v} | ${u} |`);
console.log(
  JSON.stringify({
    lines: LINES,
    baseline_lines_per_s: Math.round(baseline),
    ring_lines_per_s: Math.round(withRing),
    page_us: Number(pageUs.toFixed(1)),
    page_entries: n / PAGES,
  }),
);
