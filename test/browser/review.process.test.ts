import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  axeFindings,
  callApi,
  describeFindings,
  launchChromium,
  shot,
  startFleet,
  unexpected,
  watchedPage,
  type Fleet,
} from './browser.js';

// Issue 23, review on the wall clock, in Chromium against what `npm start` runs: the demo camera
// records; its page's player says the moment as date, time and zone (the user's chosen zone), the
// zoom changes the span the bar shows, hovering the bar loads the node's thumbnail, 2x sets the
// playback rate, and /cameras/{id}?t= starts near that moment. Screenshots at 1440x900 and 390x844.

let fleet: Fleet, browser: Browser, token: string;
let cameraId = '';
let recordedFromMs = 0;
const WALL_CLOCK = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d GMT\+1$/;

const api = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

/** The demo camera's recording of the last five minutes: its first and last segments' starts. */
async function recordedSpan(): Promise<{ first: number; last: number } | null> {
  const from = Math.floor(Date.now() / 1000) - 300;
  const play = await api<{ url: string; token: string }>('POST', `/api/v1/cameras/${cameraId}/play`, {
    intent: 'playback',
    from,
    duration: 300,
  });
  const r = await fetch(`${play.url}?token=${encodeURIComponent(play.token)}`);
  if (!r.ok) return null;
  const starts = [...(await r.text()).matchAll(/dvr-(\d+)\.ts/g)].map((m) => Number(m[1]));
  return starts.length > 0 ? { first: starts[0]!, last: starts[starts.length - 1]! } : null;
}

// The suite's hook bound (300 s, startFleet's ready line alone may take its 180 s on a loaded machine)
// plus the recording's own 90 s.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  cameraId = (await api<{ rows: Array<{ id: string }> }>('GET', '/api/v1/cameras')).rows[0]!.id;
  // The user's chosen zone is the one the player writes (cameras have none of their own).
  await api('PUT', '/api/v1/me/preferences', { timezone: 'Europe/Berlin', clock: '24h', views: [] });
  const until = Date.now() + 90_000;
  for (;;) {
    const span = await recordedSpan().catch(() => null);
    if (span && span.last - span.first >= 5000) {
      recordedFromMs = span.first;
      break;
    }
    if (Date.now() > until) throw new Error('the demo camera recorded nothing in 90 s');
    await new Promise((r) => setTimeout(r, 1000));
  }
}, 300_000 + 90_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

async function cameraPage(viewport: { width: number; height: number }, search = '') {
  const context = await browser.newContext({ viewport });
  const { page, errors } = await watchedPage(context);
  await fleet.open(page, `/cameras/${cameraId}${search}`);
  await page.getByTestId('wall-clock').waitFor();
  return { page, errors, context };
}

const playing = (page: Page) =>
  page.evaluate(() => {
    // Runs in the page (no DOM types here).
    const v = (globalThis as any).document.querySelector('.review video') as {
      readyState: number;
      currentTime: number;
    } | null;
    return v !== null && v.readyState >= 2 && v.currentTime > 0;
  });
const spanMs = async (page: Page) => Number(await page.getByTestId('review-bar').getAttribute('data-span-ms'));
const position = async (page: Page) =>
  Number(await page.getByRole('slider', { name: 'Recording position' }).getAttribute('aria-valuenow'));

describe('review on the wall clock', () => {
  it('1440x900: wall clock with zone, zoom, hover thumbnail, 2x', async () => {
    const { page, errors, context } = await cameraPage({ width: 1440, height: 900 });
    await expect.poll(() => playing(page), { timeout: 30_000 }).toBe(true);
    const clock = page.getByTestId('wall-clock');
    await expect.poll(() => clock.textContent(), { timeout: 10_000 }).toMatch(WALL_CLOCK);
    // It opened at the newest moment: within the last minute of the recording, not its start.
    expect((await position(page)) * 1000).toBeGreaterThan(Date.now() - 60_000);
    expect(await page.locator('.review video').getAttribute('controls')).toBeNull();

    const hour = await spanMs(page);
    expect(hour).toBe(3600_000);
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    await page.getByRole('button', { name: 'Zoom in' }).click();
    expect(await spanMs(page)).toBe(5 * 60_000);
    await page.getByRole('button', { name: 'Zoom out' }).click();
    expect(await spanMs(page)).toBe(15 * 60_000);
    // The wheel zooms too (out, with the page not scrolling under it).
    const bar = page.getByTestId('review-bar');
    const box = (await bar.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, 400);
    await expect.poll(() => spanMs(page)).toBeGreaterThan(15 * 60_000);
    await page.getByRole('button', { name: 'Zoom in' }).click();

    // Hover over the middle of the newest recorded range: the node's thumbnail, loaded.
    const range = (await page.locator('.review-bar .range').last().boundingBox())!;
    await page.mouse.move(range.x + range.width / 2, range.y + range.height / 2);
    await page.mouse.move(range.x + range.width / 2 + 1, range.y + range.height / 2);
    const thumb = page.locator('.hover-thumb');
    await thumb.waitFor({ timeout: 10_000 });
    const img = thumb.locator('img');
    // The node runs ffmpeg for it (two at a time on a shared machine): the picture may take a while.
    await img.waitFor({ timeout: 30_000 }).catch(async (err: unknown) => {
      await shot(page, 'review-1440-no-thumb');
      throw new Error(
        `no thumbnail, the hover says "${await thumb.textContent()}": ${String(err)} ${errors.join('\n')}`,
      );
    });
    await expect
      .poll(() => img.evaluate((i: { complete: boolean; naturalWidth: number }) => (i.complete ? i.naturalWidth : 0)), {
        timeout: 15_000,
      })
      .toBe(160);
    await shot(page, 'review-1440');
    await page.mouse.move(0, 0);
    // Every control of the review (speeds, zoom, markers and clusters, the slider) is named.
    const findings = await axeFindings(page);
    expect(findings, describeFindings('camera page', findings)).toEqual([]);

    await page.getByRole('button', { name: '2x' }).click();
    expect(await page.locator('.review video').evaluate((v: { playbackRate: number }) => v.playbackRate)).toBe(2);
    // Out to a week: the bar still shows the recording (read as ranges, not as a week of playlists).
    for (let i = 0; i < 9; i++) await page.getByRole('button', { name: 'Zoom out' }).click();
    expect(await spanMs(page)).toBe(7 * 86_400_000);
    await expect.poll(() => page.locator('.review-bar .range').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await shot(page, 'review-week-1440');
    // A chunk of the bar before the fleet started has no recording: the node's 404 no_recording, read as empty.
    expect(unexpected(errors, [{ status: 404, path: '/index-' }])).toEqual([]);
    await context.close();
  });

  it('?t= opens the recording near that moment', async () => {
    const t = Math.floor(recordedFromMs / 1000) + 20;
    // The recording must hold the moment (and a little after it) before the page opens there.
    await expect
      .poll(async () => ((await recordedSpan())?.last ?? 0) > t * 1000 + 5000, { timeout: 60_000, interval: 1000 })
      .toBe(true);
    const { page, context } = await cameraPage({ width: 1440, height: 900 }, `?t=${t}`);
    await expect.poll(() => playing(page), { timeout: 30_000 }).toBe(true);
    const at = await position(page);
    console.log(`?t=${t}: the player at ${at} (${at - t} s)`);
    // hls.js starts at the key frame of the segment holding it (2 s segments): a few seconds before at most.
    expect(at).toBeGreaterThanOrEqual(t - 6);
    expect(at).toBeLessThan(t + 30);
    await context.close();
  });

  it('390x844: the page at phone width', async () => {
    const { page, context } = await cameraPage({ width: 390, height: 844 });
    await expect.poll(() => playing(page), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => page.getByTestId('wall-clock').textContent(), { timeout: 20_000 }).toMatch(WALL_CLOCK);
    await page.getByTestId('review-bar').scrollIntoViewIfNeeded();
    await shot(page, 'review-390');
    const overflow = await page.evaluate(() => {
      const g = globalThis as any;
      return (g.document.documentElement.scrollWidth as number) - (g.innerWidth as number);
    });
    expect(overflow).toBeLessThanOrEqual(0);
    await context.close();
  });
});
