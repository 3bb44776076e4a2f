import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { resolveFfmpeg } from '../../src/node/media/ffmpeg.js';
import { CONSOLE_PAGES, mayOpen, type ConsolePage, type Role } from '../../src/common/console-pages.js';
import { launchChromium, shot, startFleet, type Fleet } from './browser.js';

// Issue 22's feed, card and phone shell in Debian's Chromium against what `npm start` runs, at a
// phone's 390x844 and a desktop's 1440x900, for the three roles: every page of the role reached
// through the navigation (the Menu on the phone), nothing wider than the screen, a long name cut
// with an ellipsis; the feed's from/to window; a card with a 16 KiB value; a row's thumbnail.

const SIZES = [
  { name: 'phone', width: 390, height: 844 },
  { name: 'desktop', width: 1440, height: 900 },
] as const;
const LONG_NAME = 'Maximiliana Theodora Wolkenstein-Oberhausen von und zu Liechtenberg';
const PASSWORD = 'a long enough password 22';

let fleet: Fleet, browser: Browser, token: string;
const logins: Record<Role, string> = { superadmin: '', admin: 'feed-admin', user: 'feed-operator' };
let longEvent = '';

const api = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${fleet.base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json() as Promise<Record<string, unknown>>;
};

/** A real JPEG (the test pattern of the ffmpeg the node itself would run), sent as an attachment with the demo module's token; its ref. */
async function imageAttachment(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'argus-thumb-'));
  try {
    const file = join(dir, 'frame.jpg');
    execFileSync(resolveFfmpeg().path, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=640x360',
      '-frames:v',
      '1',
      file,
    ]);
    const r = await fetch(`${fleet.base}/api/v1/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fleet.moduleSecret}`, 'content-type': 'image/jpeg' },
      body: readFileSync(file),
    });
    if (!r.ok) throw new Error(`attachment refused: ${r.status} ${await r.text()}`);
    return ((await r.json()) as { ref: string }).ref;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  logins.superadmin = fleet.creds.login;
  await api('POST', '/api/v1/users', { login: logins.admin, password: PASSWORD, name: 'Ada Admin', role: 'admin' });
  await api('POST', '/api/v1/users', { login: logins.user, password: PASSWORD, name: LONG_NAME, role: 'user' });
  for (const [i, severity] of [0, 1, 2, 3, 4].entries())
    await fleet.sendEvent(`feed.severity.${i}`, { severity, subject_type: 'check', subject_ref: `row ${i}` });
  await fleet.sendEvent('feed.thumbnail', { attachments: [await imageAttachment()] });
  longEvent = await fleet.sendEvent('feed.long', {
    payload: { note: 'A sentence that goes on. '.repeat(656).slice(0, 16_384), code: 'x'.repeat(16_384) },
  });
});

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

async function signIn(page: Page, role: Role, path = '/live') {
  await page.goto(`${fleet.base}${path}`);
  // A console that does not come up says what it shows instead of a bare time-out.
  await page.waitForSelector('input[name=login]', { timeout: 20_000 }).catch(async (e: unknown) => {
    throw new Error(`no sign-in form at ${path}: ${(await page.textContent('body'))?.slice(0, 300)}`, { cause: e });
  });
  await page.fill('input[name=login]', logins[role]);
  await page.fill('input[name=password]', role === 'superadmin' ? fleet.creds.password : PASSWORD);
  await page.click('button[type=submit]');
  await page.waitForSelector('header.top');
}

/** How far the document is wider than the screen (0: no horizontal scroll). */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const d = (globalThis as any).document.documentElement;
    return d.scrollWidth - (globalThis as any).innerWidth;
  });

const pagesOf = (role: Role) => (CONSOLE_PAGES as readonly ConsolePage[]).filter((p) => p.label && mayOpen(p, role));

describe.each(SIZES)('at $name size ($width x $height)', (size) => {
  it.each(['superadmin', 'admin', 'user'] as const)(
    '%s reaches every page of the role through the navigation, none wider than the screen',
    async (role) => {
      const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
      const page = await context.newPage();
      await signIn(page, role);
      const menu = page.getByRole('button', { name: 'Menu' });
      expect(await menu.isVisible()).toBe(size.name === 'phone');
      const reached: string[] = [];
      for (const p of pagesOf(role)) {
        if (size.name === 'phone') {
          await menu.click();
          if (p === pagesOf(role)[pagesOf(role).length - 1]) await shot(page, `menu-${role}-${size.name}`);
        }
        await page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name: p.label, exact: true }).click();
        await page.waitForURL(new RegExp(`${p.path}([?#].*)?$`));
        await page.waitForFunction(() => !(globalThis as any).document.body.textContent.includes('Loading the page…'));
        await page.waitForTimeout(300);
        const main = (await page.textContent('main')) ?? '';
        expect(main, `${p.path} for ${role}`).not.toMatch(/Not available to your role|could not be shown|No such page/);
        expect(await overflow(page), `${p.path} for ${role} at ${size.width} px`).toBeLessThanOrEqual(0);
        // The menu closes once a page is chosen.
        if (size.name === 'phone') expect(await menu.getAttribute('aria-expanded')).toBe('false');
        await shot(page, `page-${role}-${size.name}${p.path.replace(/\//g, '-')}`);
        reached.push(p.path);
      }
      expect(reached).toEqual(pagesOf(role).map((p) => p.path));

      // The signed-in name stays inside the header, cut with an ellipsis when long.
      const who = page.locator('header .who');
      const box = (await who.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(size.width);
      const cut = await who.evaluate((e: any) => e.scrollWidth > e.clientWidth);
      const style = await who.evaluate((e: any) => (globalThis as any).getComputedStyle(e).textOverflow);
      expect(style).toBe('ellipsis');
      if (role === 'user') {
        expect(await who.getAttribute('title')).toBe(`${LONG_NAME} (user)`);
        expect(cut).toBe(true);
        // Nothing in the header overlaps the name.
        for (const other of ['header .brand', 'header .menu-button', 'header button.link']) {
          const o = await page.locator(other).boundingBox();
          if (!o || !(await page.locator(other).isVisible())) continue;
          const apart = o.x + o.width <= box.x + 0.5 || box.x + box.width <= o.x + 0.5;
          expect(apart, `${other} beside the name`).toBe(true);
        }
        await shot(page, `long-name-${size.name}`);
      }
      await context.close();
    },
    180_000,
  );

  it('the feed: rows coloured by severity, the detector first, a thumbnail, the from/to window shown and cleared', async () => {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const page = await context.newPage();
    // The demo module sends its own events all along: the view keeps this test's.
    await signIn(page, 'superadmin', '/feed?detector=feed.*&severity=debug');
    await page.waitForSelector('.row[data-event]');
    for (const n of [0, 1, 2, 3, 4]) {
      const row = page.locator('.row', { hasText: `feed.severity.${n}` }).first();
      expect(await row.getAttribute('class')).toContain(`sev-${n}`);
      // Each severity its own colour (the row's left edge).
      expect(await row.evaluate((e: any) => (globalThis as any).getComputedStyle(e).borderLeftColor)).not.toBe(
        'rgba(0, 0, 0, 0)',
      );
    }
    const colours = await Promise.all(
      [0, 1, 2, 3, 4].map((n) =>
        page
          .locator('.row', { hasText: `feed.severity.${n}` })
          .first()
          .evaluate((e: any) => (globalThis as any).getComputedStyle(e).borderLeftColor),
      ),
    );
    expect(new Set(colours).size).toBe(5);
    expect(
      await page
        .locator('.row', { hasText: 'feed.severity.2' })
        .first()
        .evaluate((e: any) => e.children[1].className),
    ).toBe('what');
    // The preview is built in the background after the upload: read again until it shows.
    await expect
      .poll(
        async () => {
          if (await page.locator('.row', { hasText: 'feed.thumbnail' }).locator('.thumb img').count()) return true;
          await page.reload();
          await page.waitForSelector('.row[data-event]');
          await page.waitForTimeout(600);
          return page
            .locator('.row', { hasText: 'feed.thumbnail' })
            .locator('.thumb img')
            .count()
            .then((c) => c > 0);
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBe(true);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await shot(page, `feed-${size.name}`);

    // A dashboard's link brings a window: it is said, and cleared.
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    await page.goto(`${fleet.base}/feed?from=${from}&to=${to}&detector=feed.*&severity=debug`);
    const shown = page.getByTestId('time-window');
    await expect.poll(() => shown.textContent()).toMatch(/^From .+ to .+Clear time$/);
    await page.waitForSelector('.row[data-event]');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await shot(page, `feed-window-${size.name}`);
    await page.getByRole('button', { name: 'Clear time' }).click();
    await expect
      .poll(() => new URL(page.url()).search)
      .toBe(`?${new URLSearchParams({ detector: 'feed.*', severity: 'debug' })}`);
    // The address changes before the page renders it: the window goes with the next render.
    await expect.poll(() => shown.count()).toBe(0);
    // A preset writes `from` into the address, and the window is said.
    await page.getByRole('combobox', { name: 'Time' }).selectOption('1h');
    await expect.poll(() => new URL(page.url()).searchParams.has('from')).toBe(true);
    await expect.poll(() => shown.textContent()).toMatch(/to now, live/);
    await page.waitForSelector('.row[data-event]');
    await context.close();
  }, 120_000);

  it('a card with 16 KiB values wraps them; Newer is disabled on the newest event', async () => {
    const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
    const page = await context.newPage();
    // In the view of this test's events (the demo module sends its own all along), it is the newest.
    await signIn(page, 'superadmin', `/events/${longEvent}?detector=feed.*&severity=debug`);
    await page.waitForSelector('.card .details td');
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    const cells = await page
      .locator('.card .details td')
      .evaluateAll((tds: any[]) => tds.map((td) => td.getBoundingClientRect().right));
    for (const right of cells) expect(right).toBeLessThanOrEqual(size.width);
    await expect.poll(() => page.getByRole('button', { name: 'Newer' }).isDisabled()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: 'Older' }).isDisabled()).toBe(false);
    await shot(page, `card-16k-${size.name}`);
    await context.close();
  }, 60_000);
});
