/**
 * A dashboard of 12 widgets over EVENTS events (issue 15: all widgets drawn in < 2 s) in Debian's
 * Chromium against the real plane executable: EVENTS events of one organisation over 30 days
 * seeded into the day partitions (bench/plane/seed-events.ts), a dashboard of 3 kpi, 3 line
 * (by detector and hour), 2 bar, 2 donut and 2 table widgets over the last 7 days, then ROUNDS
 * loads of its page timed from navigation to every widget drawn (a number, a canvas, bars,
 * slices, rows). Baseline in the same run: the same 12 queries as one query-batch over HTTP.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/console/dashboard-render.js
 *   (EVENTS default 1000000, ROUNDS default 5)
 */
import postgres from 'postgres';
import { chromiumPath } from '../../test/browser/chromium.js';
import { chromium } from 'playwright-core';
import { benchDatabase, startPlaneProcess, loginToken, BOOT } from '../plane/harness.js';
import { seedEvents } from '../plane/seed-events.js';

const EVENTS = Number(process.env.EVENTS ?? 1_000_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DAYS = 30,
  DAY_MS = 86_400_000;

const dbInfo = await benchDatabase();
const plane = await startPlaneProcess(dbInfo.url, '[sweeper]\nenabled = false\n');
const db = postgres(dbInfo.url, { max: 2, onnotice: () => {} });
const browser = await chromium.launch({
  executablePath: await chromiumPath(),
  args: ['--no-sandbox', '--disable-gpu'],
});
async function api(method: string, path: string, body: unknown, token: string): Promise<any> {
  const r = await fetch(`${plane.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json();
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
  return json;
}
const pct = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

try {
  const root = await loginToken(plane.base, BOOT);
  const orgId = (await api('POST', '/api/v1/orgs', { name: 'bench-org' }, root)).id;
  const admin = { login: 'bench-admin', password: 'bench-password-1' };
  await api('POST', '/api/v1/users', { ...admin, name: 'bench', role: 'admin', org_id: orgId }, root);
  const session = await loginToken(plane.base, admin);
  const node = (
    await api(
      'POST',
      '/api/v1/nodes',
      { name: 'bench-node', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' },
      root,
    )
  ).id;
  const cams: string[] = [];
  for (let i = 0; i < 16; i++)
    cams.push(
      (
        await api(
          'POST',
          '/api/v1/cameras',
          { name: `cam-${i}`, node_id: node, main_source: 'rtsp://10.0.0.1/a' },
          session,
        )
      ).id,
    );
  const seconds = await seedEvents(db, EVENTS, DAYS, orgId, node, cams);
  console.log(`seeded ${EVENTS} events in ${seconds.toFixed(0)} s`);

  const board = await api(
    'POST',
    '/api/v1/analytics-dashboards',
    { name: 'Twelve', timezone: 'Europe/Berlin', default_period: 'last_7d', visibility: 'org' },
    session,
  );
  const def = (o: Record<string, unknown>) => ({ measure: 'count_events', period: 'last_7d', top_limit: 12, ...o });
  const widgets = [
    ['kpi', def({})],
    ['kpi', def({ measure: 'unique_cameras' })],
    ['kpi', def({ measure: 'open_events' })],
    ['line', def({ group_by: 'detector', bucket: 'hour' })],
    ['line', def({ group_by: 'camera', bucket: 'hour' })],
    ['line', def({ bucket: 'day' })],
    ['bar', def({ group_by: 'detector' })],
    ['bar', def({ group_by: 'camera' })],
    ['donut', def({ group_by: 'severity' })],
    ['donut', def({ group_by: 'category' })],
    ['table', def({ group_by: 'detector', bucket: 'day' })],
    ['table', def({ measure: 'avg_confidence', group_by: 'camera' })],
  ] as const;
  for (const [i, [visualization, inline_definition]] of widgets.entries()) {
    await api(
      'POST',
      `/api/v1/analytics-dashboards/${board.id}/widgets`,
      { title: `w${i}`, visualization, inline_definition, position: i },
      session,
    );
  }

  // Baseline: the same 12 queries as one batch, straight over HTTP.
  const to = new Date(),
    from = new Date(to.getTime() - 7 * DAY_MS);
  const batchMs: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const b0 = performance.now();
    await api(
      'POST',
      '/api/v1/event-analytics/query-batch',
      {
        queries: widgets.map(([, d], k) => {
          const { period: _p, ...q } = d;
          return {
            key: `w${k}`,
            query: { ...q, from: from.toISOString(), to: to.toISOString(), timezone: 'Europe/Berlin' },
          };
        }),
      },
      session,
    );
    batchMs.push(performance.now() - b0);
  }

  const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 } })).newPage();
  await page.goto(`${plane.base}/login`);
  await page.fill('input[name=login]', admin.login);
  await page.fill('input[name=password]', admin.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('header.top');
  const drawn = () =>
    page.waitForFunction(
      () => {
        const d = (globalThis as any).document;
        const ws = [...d.querySelectorAll('.widget')] as any[];
        return ws.length === 12 && ws.every((w) => w.querySelector('.kpi, canvas, .bar-row, svg path, table tr'));
      },
      undefined,
      { timeout: 60_000, polling: 'raf' },
    );
  const renderMs: number[] = [];
  for (let i = 0; i < ROUNDS + 1; i++) {
    const r0 = Date.now();
    await page.goto(`${plane.base}/dashboards/${board.id}`);
    await drawn();
    if (i > 0) renderMs.push(Date.now() - r0); // the first load warms the browser's cache of the bundle
  }
  console.log(`| dashboard of 12 widgets, ${EVENTS} events over 30 days, last 7 days | p50 ms | max ms |`);
  console.log('|---|---|---|');
  console.log(`| page load to every widget drawn (Chromium) | ${pct(renderMs, 0.5)} | ${Math.max(...renderMs)} |`);
  console.log(
    `| the same 12 queries as one query-batch over HTTP (baseline) | ${pct(batchMs, 0.5).toFixed(0)} | ${Math.max(...batchMs).toFixed(0)} |`,
  );
  console.log(
    JSON.stringify({
      events: EVENTS,
      render_ms: { p50: pct(renderMs, 0.5), max: Math.max(...renderMs) },
      batch_ms: { p50: +pct(batchMs, 0.5).toFixed(0), max: +Math.max(...batchMs).toFixed(0) },
    }),
  );
} finally {
  await browser.close();
  await db.end();
  await plane.stop();
  await dbInfo.drop();
}
