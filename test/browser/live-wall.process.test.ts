import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import {
  axeFindings,
  describeFindings,
  launchChromium,
  shot,
  startFleet,
  watchedPage,
  type Fleet,
  callApi,
} from './browser.js';

// Issue 23, "The live wall", in Chromium against what `npm start` runs: the wall's layouts, a tile
// maximised on its camera's main stream (sub on the wall), the wall in full screen, a saved view
// that a reload and another browser open again, at 1440x900 and on a 390x844 phone.

let fleet: Fleet, browser: Browser, token: string;
let demo = '';
let east = '';
/** Both cameras in the order of GET /cameras (by id), the wall's order. */
let both: string[] = [];
const EAST = 'east yard camera with a name far too long for a small tile';
const MAIN = 'testsrc://wall-main?size=320x240&rate=5&bitrate=150';
const SUB = 'testsrc://wall-sub?size=160x120&rate=5&bitrate=60';

const call = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  const node = (await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/nodes')).rows[0]!.id;
  demo = (await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/cameras')).rows[0]!.id;
  east = (
    await call<{ id: string }>('POST', '/api/v1/cameras', {
      name: EAST,
      node_id: node,
      main_source: MAIN,
      sub_source: SUB,
    })
  ).id;
  // A camera is unavailable until a sweep finds its stream on the node (every 5 s), and the wall
  // gives an unavailable camera no player until it reads the cameras again (every 15 s): opened
  // before then, the tile's first play came ~15 s late, at the poll's own bound. Opened once the
  // plane lists the camera live, the tile plays at once. 60 s: a hang bound for late sweeps.
  await vi.waitFor(
    async () => expect((await call<{ status: string }>('GET', `/api/v1/cameras/${east}`)).status).toBe('live'),
    { timeout: 60_000, interval: 500 },
  );
  both = (await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/cameras')).rows.map((c) => c.id);
  // The superadmin reads times in Tokyo on a 12-hour clock: saving a view must keep both.
  await call('PUT', '/api/v1/me/preferences', { timezone: 'Asia/Tokyo', clock: '12h', views: [] });
});

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

/** The POST /play bodies the page sends, with the camera each is for. */
function plays(page: Page): Array<{ camera: string; profile: string }> {
  const sent: Array<{ camera: string; profile: string }> = [];
  page.on('request', (r) => {
    const m = /\/api\/v1\/cameras\/([^/]+)\/play$/.exec(new URL(r.url()).pathname);
    if (m && r.method() === 'POST')
      sent.push({ camera: m[1]!, profile: (r.postDataJSON()?.profile as string) ?? 'MAIN' });
  });
  return sent;
}

/** The tiles shown, by camera id, in grid order. */
const tiles = (page: Page) =>
  page.locator('.wall-tile:not([hidden])').evaluateAll((els) => els.map((e) => e.getAttribute('data-camera')));
// Runs in the page (no DOM types here): the columns the grid draws.
const side = (page: Page) =>
  page.evaluate<number>("getComputedStyle(document.querySelector('.wall-grid')).gridTemplateColumns.split(' ').length");
/** The tile's video has a picture (runs in the page). */
const playing = (page: Page, camera: string) =>
  page.waitForFunction(
    (id) => ((globalThis as any).document.querySelector(`.wall-tile[data-camera="${id}"] video`)?.readyState ?? 0) >= 2,
    camera,
    { timeout: 30_000 },
  );
/** The class of the element in full screen, '' when none (runs in the page). */
const fullscreen = (page: Page) => page.evaluate<string>("document.fullscreenElement?.className ?? ''");
/** How far the page is wider than the screen (runs in the page). */
const overflow = (page: Page) => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');

async function noFindings(page: Page, where: string) {
  const findings = await axeFindings(page);
  expect(describeFindings(where, findings)).toBe('');
}

describe('the live wall', () => {
  it('1440x900: layouts, a tile maximised on the main stream, full screen, a view saved and reopened after a reload', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const { page, errors } = await watchedPage(context);
    const sent = plays(page);
    await fleet.open(page, '/live');
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(both);
    expect(await side(page)).toBe(2);
    // On the wall the east camera plays its sub stream, the demo camera (none) its main one: the
    // first play each tile asks. 30 s: a hang bound (the camera is live, the play follows the render).
    await expect.poll(() => sent.find((p) => p.camera === east)?.profile, { timeout: 30_000 }).toBe('SUB');
    expect(sent.find((p) => p.camera === demo)?.profile).toBe('MAIN');
    await playing(page, demo);
    await expect.poll(() => page.locator('.wall-clock').first().textContent()).toMatch(/\d:\d\d:\d\d\s[AP]M GMT\+9$/);
    const name = page.getByRole('link', { name: EAST });
    expect(await name.getAttribute('title')).toBe(EAST);
    await shot(page, 'live-wall-1440');
    await noFindings(page, '/live 1440');

    await page.getByLabel('Layout').selectOption('1');
    await expect.poll(() => tiles(page)).toEqual([both[0]]);
    expect(new URL(page.url()).search).toBe('?layout=1');
    await page.getByRole('button', { name: 'Next page' }).click();
    await expect.poll(() => tiles(page)).toEqual([both[1]]);
    await page.getByLabel('Layout').selectOption('3x3');
    await expect.poll(() => side(page)).toBe(3);
    await page.getByLabel('Layout').selectOption('auto');
    await expect.poll(() => side(page)).toBe(2);

    // Maximised, the tile fills the wall alone and asks the camera's main stream.
    const before = sent.length;
    await page.getByRole('button', { name: `Maximise ${EAST}` }).click();
    await expect.poll(() => tiles(page)).toEqual([east]);
    await expect
      .poll(() => sent.slice(before).find((p) => p.camera === east)?.profile, { timeout: 15_000 })
      .toBe('MAIN');
    await shot(page, 'live-wall-maximised-1440');
    await page.keyboard.press('Escape');
    await expect.poll(() => tiles(page)).toEqual(both);

    // The wall in full screen, left with its button (Escape is the browser's own there).
    await page.getByRole('button', { name: 'Full screen', exact: true }).click();
    await expect.poll(() => fullscreen(page)).toContain('live-wall');
    await page.keyboard.press('Escape');
    await expect.poll(() => fullscreen(page)).toBe('');
    // One tile in full screen plays the main stream too.
    const fromTile = sent.length;
    await page.getByRole('button', { name: `Full screen ${EAST}` }).click();
    await expect.poll(() => fullscreen(page)).toContain('wall-tile');
    await expect
      .poll(() => sent.slice(fromTile).find((p) => p.camera === east)?.profile, { timeout: 15_000 })
      .toBe('MAIN');
    await page.getByRole('button', { name: 'Leave full screen' }).click();
    await expect.poll(() => fullscreen(page)).toBe('');

    // A view of the east camera alone on 2x2, saved to the user's preferences.
    await page.getByRole('button', { name: 'Cameras' }).click();
    await page.getByRole('button', { name: 'None' }).click();
    // The choice goes through the address (a navigation): the box follows a render later, so it is
    // clicked once cleared and then read, not checked at once (check() failed so under load).
    const eastBox = page.getByRole('checkbox', { name: EAST });
    await expect.poll(() => eastBox.isChecked()).toBe(false);
    await eastBox.click();
    await expect.poll(() => eastBox.isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Done' }).click();
    await page.getByLabel('Layout').selectOption('2x2');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByLabel('Name of the view').fill('East yard');
    await page.getByRole('form', { name: 'Save view' }).getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(/\/live\?view=East\+yard$/);
    const prefs = await call<unknown>('GET', '/api/v1/me/preferences');
    expect(prefs).toEqual({
      timezone: 'Asia/Tokyo',
      clock: '12h',
      views: [{ name: 'East yard', layout: '2x2', camera_ids: [east] }],
    });
    await page.reload();
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual([east]);
    expect(await page.getByLabel('View').inputValue()).toBe('East yard');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);

  it('390x844: another browser opens the saved view; the phone shows 2x2 at most, with no page wider than the screen', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/live');
    await expect.poll(() => tiles(page), { timeout: 15_000 }).toEqual(both);
    await page.getByLabel('View').selectOption('East yard');
    await expect.poll(() => tiles(page)).toEqual([east]);
    expect(new URL(page.url()).search).toBe('?view=East+yard');
    await page.getByLabel('View').selectOption('');
    await page.getByLabel('Layout').selectOption('4x4');
    await expect.poll(() => side(page)).toBe(2);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await playing(page, demo);
    await shot(page, 'live-wall-390');
    await noFindings(page, '/live 390');
    await page.getByRole('button', { name: `Maximise ${EAST}` }).click();
    await expect.poll(() => tiles(page)).toEqual([east]);
    await shot(page, 'live-wall-maximised-390');
    await page.getByRole('button', { name: 'Back to wall' }).click();
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByLabel('Name of the view').waitFor();
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await shot(page, 'live-wall-save-390');
    await noFindings(page, '/live 390 saving');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
