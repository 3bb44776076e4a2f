import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { until } from '../start/launcher.js';
import { launchChromium, shot, startFleet, unexpected, watchedPage, type Fleet } from './browser.js';

// The console (issue 14) in Debian's Chromium against what `npm start` runs: the real plane, the
// real node and its demo camera (testsrc, recorded), and the demo module sending events.

let fleet: Fleet, base: string, browser: Browser, context: BrowserContext;
let creds: { login: string; password: string };

async function signIn(page: Page, path = '/') {
  await page.goto(`${base}${path}`);
  await page.fill('input[name=login]', creds.login);
  await page.fill('input[name=password]', creds.password);
  await page.click('button[type=submit]');
}

const open = (page: Page, path: string) => fleet.open(page, path);

const sendEvent = (detector: string, extra?: Record<string, unknown>) => fleet.sendEvent(detector, extra);

/** Resolves when the page's first matching video has played past `seconds`. */
const playsPast = (page: Page, selector: string, seconds: number, timeout = 30_000) =>
  page.waitForFunction(
    ([s, t]) => {
      // Evaluated in the page (functions, not strings: the console's policy forbids eval).
      const v = (globalThis as any).document.querySelector(s);
      return !!v && v.currentTime > t && !v.paused;
    },
    [selector, seconds] as const,
    { timeout, polling: 100 },
  );

// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  ({ base, creds } = fleet);
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

describe('the console in Chromium', () => {
  it('signs in and shows the live grid; the demo tile really plays', async () => {
    const { page, errors } = await watchedPage(context);
    await page.goto(`${base}/`);
    await shot(page, 'login');
    await signIn(page, '/');
    await page.waitForURL(`${base}/live`);
    const opened = Date.now();
    await page.waitForSelector('.wall-tile[data-camera] .wall-caption');
    await playsPast(page, '.wall-tile video', 0.2);
    const firstFrameMs = Date.now() - opened;
    await playsPast(page, '.wall-tile video', 2);
    await expect.poll(() => page.locator('.wall-tile .badge').first().textContent()).toBe('live');
    await shot(page, 'live-grid');
    console.log(`first live frame after opening the grid: ${firstFrameMs} ms`);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('an event sent by a module appears in the open feed without reload (the delay printed)', async () => {
    const { page, errors } = await watchedPage(context);
    await open(page, '/feed');
    await page.waitForSelector('.live-dot.on');
    const sent = Date.now();
    const id = await sendEvent('browser.arrival');
    // The 2 s target is printed, not asserted (a loaded machine misses it); the bound is for a row
    // that never comes without a reload.
    await page.waitForSelector(`.row[data-event="${id}"]`, { timeout: 30_000 });
    console.log(`event in the feed ${Date.now() - sent} ms after it was sent (target 2000 ms)`);
    await shot(page, 'feed');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a deep link restores the filters; the card opens with its preview; navigate moves through the result', async () => {
    const { page, errors } = await watchedPage(context);
    // Two older rows, so that the newest (a demo event with its snapshot) has an older neighbour.
    for (const m of [60, 61])
      await sendEvent('demo.backfill', { occurred_at: new Date(Date.now() - m * 60_000).toISOString() });
    await until(
      'a demo event with a snapshot',
      async () =>
        (await feedRows('/api/v1/events?detector=demo.*&limit=1'))[0]?.attachments.length ? true : undefined,
      fleet.running,
      30_000,
    );
    await open(page, '/feed?detector=demo.*&severity=info');
    await expect.poll(() => page.inputValue('input[name=detector]')).toBe('demo.*');
    expect(await page.inputValue('select[name=severity]')).toBe('info');
    await page.waitForSelector('.row[data-event]');
    const shown = await page.locator('.row .what').allTextContents();
    expect(shown.length).toBeGreaterThan(0);
    await page.locator('.row[data-event]').first().click();
    await page.waitForURL(/\/events\/[0-9a-f-]{36}\?detector=demo\.\*&severity=info$/);
    await page.waitForSelector('img.preview', { timeout: 20_000 });
    await shot(page, 'event-card');
    // Older: the next row of the same filtered result, the filters kept.
    const first = page.url();
    await page.click('button:text("Older")');
    await page.waitForURL(
      (u) => u.toString() !== first && /\/events\/[0-9a-f-]{36}\?detector=demo\.\*&severity=info$/.test(u.toString()),
    );
    await expect.poll(() => page.locator('h2').textContent()).toMatch(/^demo/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('"play from here" plays the recording at the event', async () => {
    const { page, errors } = await watchedPage(context);
    await sendEvent('browser.moment', { camera_id: await demoCamera() });
    // A few seconds of recording after the moment.
    await new Promise((r) => setTimeout(r, 6_000));
    await open(page, '/feed?detector=browser.moment');
    await page.locator('.row[data-event]').first().click();
    await page.click('text=Play from here');
    // Issue 23: the camera page's recording, opened 10 s before the event (?t=).
    await page.waitForURL(/\/cameras\/[0-9a-f-]{36}\?t=\d+$/);
    await playsPast(page, '.review video', 1);
    await shot(page, 'play-from-here');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('the camera page: live, the recording on a timeline with its events, a seek, an MP4 export', async () => {
    const { page, errors } = await watchedPage(context);
    const camera = await demoCamera();
    await sendEvent('browser.marker', { camera_id: camera, occurred_at: new Date(Date.now() - 4_000).toISOString() });
    await open(page, `/cameras/${camera}`);
    await playsPast(page, '.camera-views video', 0.5);
    await page.waitForSelector('.review-bar .range');
    await page.waitForSelector('.review-bar .marker');
    await page.locator('.review-bar .marker').last().click();
    await playsPast(page, '.review video', 0.5);
    await shot(page, 'camera');
    // Issue 23: the export goes through the plane's route, from the export panel the bar fills.
    await page.click('text=Export last range');
    const [download] = await Promise.all([
      page.waitForEvent('download', { timeout: 45_000 }),
      page.getByRole('button', { name: 'Export', exact: true }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^demo camera_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}_\w+\.mp4$/);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('an ended session goes back to the login with the place kept, and returns there', async () => {
    const { page, errors } = await watchedPage(context);
    await open(page, '/feed?detector=demo.*');
    await page.waitForSelector('.row[data-event]');
    // The session ends on the server (another tab signs out, an administrator revokes it).
    const token = await page.evaluate(() => (globalThis as any).localStorage.getItem('argus.session') as string);
    await fetch(`${base}/api/v1/auth/logout`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    // The next request the page makes is refused: the live stream ends, the console notices.
    await page.goto(`${base}/live`);
    await page.waitForURL(/\/login\?next=%2Flive/);
    await signIn(page, '/login?next=%2Ffeed%3Fdetector%3Ddemo.*');
    await page.waitForURL(`${base}/feed?detector=demo.*`);
    // The refusals that end the session are expected; nothing else.
    expect(unexpected(errors, [{ status: 401, path: '/api/v1/' }])).toEqual([]);
    await page.close();
  }, 60_000);

  it("at a phone's width the main pages lay out without errors", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const { page, errors } = await watchedPage(phone);
    await signIn(page, '/feed');
    await page.waitForURL(`${base}/feed`);
    await page.waitForSelector('.row[data-event]');
    await shot(page, 'feed-mobile');
    await page.goto(`${base}/live`);
    await page.waitForSelector('.wall-tile video');
    await shot(page, 'live-mobile');
    expect(
      await page.evaluate(
        () => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth + 1,
      ),
    ).toBe(true);
    expect(errors).toEqual([]);
    await phone.close();
  }, 60_000);
});

async function feedRows(path: string): Promise<Array<{ attachments: unknown[] }>> {
  return (
    (await (
      await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${await fleet.session()}` } })
    ).json()) as { rows: Array<{ attachments: unknown[] }> }
  ).rows;
}

async function demoCamera(): Promise<string> {
  const cams = (await (
    await fetch(`${base}/api/v1/cameras`, { headers: { authorization: `Bearer ${await fleet.session()}` } })
  ).json()) as { rows: Array<{ id: string }> };
  return cams.rows[0]!.id;
}
