import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { segmentsOf } from '../../web/src/lib/recording.js';
import { axeFindings, launchChromium, shot, startFleet, watchedPage, type Fleet, callApi } from './browser.js';

// Issue 23, synchronised review, in Debian's Chromium against what `npm start` runs: the demo
// camera and a second one, both recorded from the node's test picture, played on /review from
// one clock; the moments the two videos show stay within 0.5 s of each other after a few seconds
// of play and after a seek; an export from the console downloads the file under the plane's name.

let fleet: Fleet, browser: Browser, token: string;
const SECOND = 'second camera';
const cameras: Array<{ id: string; name: string }> = [];

const call = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

/** The first recorded moment (ms) of a camera's last `seconds`, and how many seconds it holds. */
async function recorded(id: string, seconds: number): Promise<{ firstMs: number; heldS: number }> {
  const from = Math.floor(Date.now() / 1000) - seconds;
  const play = await call<{ url: string; token: string }>('POST', `/api/v1/cameras/${id}/play`, {
    intent: 'playback',
    from,
    duration: seconds,
  });
  const r = await fetch(`${play.url}?token=${encodeURIComponent(play.token)}`);
  const segments = r.ok ? segmentsOf(await r.text()) : [];
  return {
    firstMs: segments[0]?.startMs ?? Number.NaN,
    heldS: segments.reduce((s, x) => s + x.durationMs / 1000, 0),
  };
}

beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  const nodeId = (await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/nodes')).rows[0]!.id;
  await call('POST', '/api/v1/cameras', {
    name: SECOND,
    node_id: nodeId,
    main_source: 'testsrc://review?size=320x240&rate=10&bitrate=200',
    recording: { retention: '1d' },
  });
  const rows = (await call<{ rows: Array<{ id: string; name: string }> }>('GET', '/api/v1/cameras')).rows;
  cameras.push(...rows.filter((c) => c.name === 'demo camera' || c.name === SECOND));
  expect(cameras).toHaveLength(2);
  // Both record for at least 60 s before the review starts (a wait, not a measure: up to 210 s).
  const held = async () =>
    Math.min(...(await Promise.all(cameras.map(async (c) => (await recorded(c.id, 600)).heldS))));
  for (let tries = 0; (await held()) < 60; tries++) {
    if (tries > 105) throw new Error('the two cameras did not record 60 s within 210 s');
    await new Promise((r) => setTimeout(r, 2000));
  }
}, 360_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

/** The wall-clock moment (ms) each tile's video shows, as the review's clock last read them together. */
const shown = (page: Page) =>
  page.evaluate(() =>
    [...(globalThis as any).document.querySelectorAll('.sync-tile video')].map((v: any) => ({
      shows: Number(v.dataset.shows ?? Number.NaN),
      paused: v.paused as boolean,
      rate: v.playbackRate as number,
      ready: v.readyState as number,
      gap: !!v.closest('.sync-tile')?.querySelector('.no-recording'),
    })),
  );

/** The largest distance (ms) between the moments the videos show; Infinity until both show one. */
async function spread(page: Page): Promise<number> {
  const s = (await shown(page)).map((v) => v.shows);
  if (s.length < 2 || s.some((x) => !Number.isFinite(x))) return Number.POSITIVE_INFINITY;
  return Math.max(...s) - Math.min(...s);
}

describe('synchronised review', () => {
  it('at 1440x900: two cameras play from one clock, within 0.5 s of each other, after play, after a seek and at 4x', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const { page, errors } = await watchedPage(context);
    const starts = await Promise.all(cameras.map((c) => recorded(c.id, 600)));
    // A moment both recorded, 5 s into the later start.
    const from = Math.ceil((Math.max(...starts.map((s) => s.firstMs)) + 5000) / 1000) * 1000;
    await fleet.open(
      page,
      `/review?cameras=${cameras.map((c) => c.id).join(',')}&from=${new Date(from).toISOString()}`,
    );
    await page.locator('.sync-tile video').nth(1).waitFor({ state: 'attached', timeout: 30_000 });
    // Played a few seconds: both videos show moments past the start, and the same one.
    await page.waitForFunction(
      (past) => {
        const vs = [...(globalThis as any).document.querySelectorAll('.sync-tile video')];
        return vs.length === 2 && vs.every((v: any) => Number(v.dataset.shows) > past && !v.paused);
      },
      from + 3000,
      { timeout: 45_000, polling: 200 },
    );
    const afterPlay = await spread(page);
    console.log(`review: the two videos ${afterPlay} ms apart after playing`);
    expect(afterPlay).toBeLessThan(500);
    await shot(page, 'review-1440');

    // A seek on the scrub bar, 20 s on from the start: both there, together, and playing on.
    const target = from + 20_000;
    await page.getByRole('slider', { name: 'Review position' }).fill(String(target / 1000));
    await page.waitForFunction(
      (at) => {
        const vs = [...(globalThis as any).document.querySelectorAll('.sync-tile video')];
        return vs.length === 2 && vs.every((v: any) => Number(v.dataset.shows) > at + 1000 && !v.paused);
      },
      target,
      { timeout: 30_000, polling: 200 },
    );
    const afterSeek = await spread(page);
    console.log(`review: the two videos ${afterSeek} ms apart after a seek`);
    expect(afterSeek).toBeLessThan(500);
    // At 4x for all: still together.
    await page.getByLabel('Speed').selectOption('4');
    await page
      .waitForFunction(
        (at) => {
          const vs = [...(globalThis as any).document.querySelectorAll('.sync-tile video')];
          return vs.length === 2 && vs.every((v: any) => Number(v.dataset.shows) > at && v.playbackRate > 3);
        },
        target + 12_000,
        { timeout: 30_000, polling: 200 },
      )
      .catch(async (e: unknown) => {
        throw new Error(`at 4x the videos did not play on together: ${JSON.stringify(await shown(page))}`, {
          cause: e,
        });
      });
    const atSpeed = await spread(page);
    console.log(`review: the two videos ${atSpeed} ms apart at 4x`);
    expect(atSpeed).toBeLessThan(500);
    const time = await page.getByLabel('Review time').textContent();
    expect(time).toMatch(/\d{2}:\d{2}:\d{2} \S+$/);
    expect(await axeFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 150_000);

  it('exports the demo camera from its tile: the download is named <camera>_<date_time>_<duration>.mp4', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
    const { page, errors } = await watchedPage(context);
    const starts = await Promise.all(cameras.map((c) => recorded(c.id, 600)));
    const from = Math.ceil((Math.max(...starts.map((s) => s.firstMs)) + 5000) / 1000) * 1000;
    await fleet.open(
      page,
      `/review?cameras=${cameras.map((c) => c.id).join(',')}&from=${new Date(from).toISOString()}`,
    );
    await page.getByRole('button', { name: 'Pause' }).click();
    await page.locator('.sync-tile[data-camera="demo camera"]').getByRole('button', { name: 'Export' }).click();
    const form = page.getByRole('form', { name: 'Export of demo camera' });
    await form.getByLabel('Duration (seconds)').fill('10');
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await form.getByRole('button', { name: 'Export' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^demo camera_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}_10s\.mp4$/);
    await form.getByText(/^Saved demo camera_.*_10s\.mp4 \(\d/).waitFor();
    await shot(page, 'review-export-1440');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('at 390x844: the review fits the phone', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const { page, errors } = await watchedPage(context);
    const starts = await Promise.all(cameras.map((c) => recorded(c.id, 600)));
    const from = Math.ceil((Math.max(...starts.map((s) => s.firstMs)) + 5000) / 1000) * 1000;
    await fleet.open(
      page,
      `/review?cameras=${cameras.map((c) => c.id).join(',')}&from=${new Date(from).toISOString()}`,
    );
    await page.locator('.sync-tile video').nth(1).waitFor({ state: 'attached', timeout: 30_000 });
    await page.getByRole('button', { name: 'Pause' }).click();
    const overflow = await page.evaluate(
      () => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await shot(page, 'review-390');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
