import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchChromium, shot, startFleet, unexpected, watchedPage, type Fleet } from './browser.js';

// The audit screen of the console (issue 15, in part) in Debian's Chromium against `npm start`'s fleet.

let fleet: Fleet, browser: Browser;
// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

describe('audit', () => {
  it('lists records live, opens one with its params, filters by action in the URL, explains the 31-day rule, exports CSV', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/admin/audit');
    await page.waitForSelector('tr[data-audit]');
    // A record written now (a sign-in elsewhere) appears without reload.
    const before = await page.locator('tr[data-audit]').count();
    await fleet.session();
    await expect.poll(() => page.locator('tr[data-audit]').count(), { timeout: 5_000 }).toBeGreaterThan(before);
    expect(await page.locator('tr[data-audit] td').nth(2).textContent()).toBe('auth.login');
    await page.locator('tr[data-audit]').first().click();
    await expect.poll(() => page.textContent('[data-testid=params]')).toMatch(/^\{/);
    await shot(page, 'audit');

    await page.selectOption('select[name=action]', 'auth.login');
    await page.click('button:text("Apply")');
    await page.waitForURL(/\/admin\/audit\?action=auth\.login$/);
    await expect
      .poll(async () => [...new Set(await page.locator('tr[data-audit] td:nth-child(3)').allTextContents())])
      .toEqual(['auth.login']);

    // A search without a window: the rule, said in words.
    await page.goto(`${fleet.base}/admin/audit?q=camera`);
    await expect
      .poll(() => page.textContent('[role=alert]'))
      .toBe('A search needs a "from" date: it looks through at most 31 days.');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      (async () => {
        await page.goto(`${fleet.base}/admin/audit`);
        await page.waitForSelector('tr[data-audit]');
        await page.click('button:text("CSV")');
      })(),
    ]);
    expect(download.suggestedFilename()).toBe('audit.csv');
    expect(unexpected(errors, [{ status: 400, path: '/api/v1/audit?' }])).toEqual([]);
    await context.close();
  }, 60_000);
});
