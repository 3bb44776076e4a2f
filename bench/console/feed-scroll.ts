/**
 * The console's event feed scrolled through EVENTS rows in Debian's Chromium (issue 14): the
 * real plane executable with EVENTS events sent through the intake, the feed opened, then the
 * list scrolled from top to bottom at SPEED pixels per frame while the page records the time
 * between animation frames. Older pages load while it scrolls (keyset, 500 rows). Prints the
 * frame-time percentiles and the frames over 1.5 and 3 vsync intervals, beside the same scroll
 * of a plain page of as many static rows in the same browser (the baseline).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/console/feed-scroll.js
 *   (EVENTS default 10000, SPEED default 400)
 */
import { chromiumPath } from '../../test/browser/chromium.js';
import { chromium, type Page } from 'playwright-core';
import { benchDatabase, startPlaneProcess, loginToken, BOOT } from '../plane/harness.js';

const EVENTS = Number(process.env.EVENTS ?? 10_000);
const SPEED = Number(process.env.SPEED ?? 400);

/** Scrolls `selector` to its end (more rows may arrive meanwhile), recording frame intervals. */
async function scrollFrames(
  page: Page,
  selector: string,
  rowsWanted: number,
): Promise<{ frames: number[]; rows: number }> {
  return page.evaluate(
    async ([sel, speed, want]) => {
      const g = globalThis as any;
      const el = g.document.querySelector(sel);
      const frames: number[] = [];
      let last = g.performance.now();
      let idle = 0;
      await new Promise<void>((done) => {
        const step = (t: number) => {
          frames.push(t - last);
          last = t;
          const before = el.scrollTop;
          el.scrollTop = before + speed;
          const atEnd = el.scrollTop === before;
          idle = atEnd ? idle + 1 : 0;
          // At the end: wait up to 5 s of frames for another page, then stop.
          if ((atEnd && el.scrollHeight / 44 >= want) || idle > 300) done();
          else g.requestAnimationFrame(step);
        };
        g.requestAnimationFrame(step);
      });
      return { frames: frames.slice(1), rows: Math.round(el.scrollHeight / 44) };
    },
    [selector, SPEED, rowsWanted] as const,
  );
}

function summary(frames: number[]) {
  const s = [...frames].sort((a, b) => a - b);
  const q = (p: number) => +s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(1);
  return {
    frames: s.length,
    p50_ms: q(0.5),
    p95_ms: q(0.95),
    p99_ms: q(0.99),
    max_ms: q(1),
    over_25ms: s.filter((x) => x > 25).length,
    over_50ms: s.filter((x) => x > 50).length,
  };
}

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url, '[sweeper]\nenabled = false\n');
const browser = await chromium.launch({
  executablePath: await chromiumPath(),
  args: ['--no-sandbox', '--disable-gpu'],
});
try {
  const session = await loginToken(plane.base, BOOT);
  const tok = (await (
    await fetch(`${plane.base}/api/v1/module-tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', rate_limit: 1_000_000 }),
    })
  ).json()) as { secret: string };
  const now = Date.now();
  for (let i = 0; i < EVENTS; i += 500) {
    const events = Array.from({ length: Math.min(500, EVENTS - i) }, (_, j) => ({
      detector: `bench.${(i + j) % 7}`,
      severity: 1 + ((i + j) % 4),
      occurred_at: new Date(now - (i + j) * 1000).toISOString(),
      payload: { n: i + j },
    }));
    const r = await fetch(`${plane.base}/api/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    });
    if (r.status !== 200) throw new Error(`intake ${r.status} ${await r.text()}`);
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(`${plane.base}/login?next=%2Ffeed`);
  await page.fill('input[name=login]', BOOT.login);
  await page.fill('input[name=password]', BOOT.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('.row[data-event]');
  const t0 = Date.now();
  const feed = await scrollFrames(page, '[data-testid=feed-list]', EVENTS);
  const feedMs = Date.now() - t0;

  // Baseline: a static page of as many rows of the same height, scrolled the same way.
  const plain = await context.newPage();
  await plain.setContent(
    `<div id="list" style="height:700px;overflow:auto">${'<div style="height:44px;border-bottom:1px solid #ccc">2026-11-25 12:00:00 info bench.3 camera</div>'.repeat(EVENTS)}</div>`,
  );
  const base = await scrollFrames(plain, '#list', EVENTS);

  const f = summary(feed.frames),
    b = summary(base.frames);
  console.log(
    `| scroll ${EVENTS} rows at ${SPEED} px/frame | frames | p50 ms | p95 ms | p99 ms | max ms | > 25 ms | > 50 ms |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(
    `| console feed (virtualised, pages of 500 loaded while scrolling; ${feed.rows} rows reached in ${(feedMs / 1000).toFixed(1)} s) | ${f.frames} | ${f.p50_ms} | ${f.p95_ms} | ${f.p99_ms} | ${f.max_ms} | ${f.over_25ms} | ${f.over_50ms} |`,
  );
  console.log(
    `| static page of ${EVENTS} plain rows (baseline) | ${b.frames} | ${b.p50_ms} | ${b.p95_ms} | ${b.p99_ms} | ${b.max_ms} | ${b.over_25ms} | ${b.over_50ms} |`,
  );
  console.log(
    JSON.stringify({
      events: EVENTS,
      rows_reached: feed.rows,
      seconds: +(feedMs / 1000).toFixed(1),
      feed: f,
      baseline: b,
    }),
  );
} finally {
  await browser.close();
  await plane.stop();
  await db.drop();
}
