import { expect } from 'vitest';
import type { Browser } from 'playwright-core';
import { axeFindings, describeFindings, shot, type Fleet } from './browser.js';

/**
 * Issue 22, installable: the console linked to its manifest, the service worker (/sw.js) in
 * control of the page, then the network cut (Playwright's offline, which navigator.onLine and
 * every fetch see): the banner says so at once; a reload opens the shell from the worker's cache
 * (the plane cannot answer, and the shell says that too); back online, Retry reads the session
 * again and the banner goes. At phone width, with axe on the offline screen.
 */
export async function offlineChecks(browser: Browser, fleet: Fleet, who: { login: string; password: string }) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(`${fleet.base}/live`);
  await page.fill('input[name=login]', who.login);
  await page.fill('input[name=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('header.top');
  const manifest = await page.evaluate(async () => {
    const g = globalThis as any;
    const href = g.document.querySelector('link[rel=manifest]').href as string;
    return (await (await g.fetch(href)).json()) as { short_name: string; start_url: string };
  });
  expect(manifest).toMatchObject({ short_name: 'Argus', start_url: '/live' });
  // The worker installed (the shell precached) and controlling this page.
  const worker = await page.evaluate(async () => {
    const sw = (globalThis as any).navigator.serviceWorker;
    const ready = await sw.ready;
    for (let i = 0; i < 50 && !sw.controller; i++) await new Promise((r) => setTimeout(r, 100));
    return { script: ready.active?.scriptURL as string, controlled: Boolean(sw.controller) };
  });
  expect(worker).toEqual({ script: `${fleet.base}/sw.js`, controlled: true });
  const banner = page.locator('.offline-banner[role=status]');
  expect(await banner.count()).toBe(0);

  // On a machine with loopback alone Chromium says offline from the start (the banner rightly
  // believes the plane's answers instead): going offline then fires no event, and the banner says
  // why from the failed reads.
  const onLineBefore = await page.evaluate(() => (globalThis as any).navigator.onLine as boolean);
  await context.setOffline(true);
  await expect
    .poll(() => banner.textContent())
    .toMatch(onLineBefore ? /^You are offline: this device has no network\./ : /^You are offline:/);
  await shot(page, 'offline-banner-live-390');
  await page.reload();
  // The shell from the worker's cache: the session cannot be read, and both the shell and the banner say why.
  // (after the shell's one retry of the session's read)
  await expect.poll(() => page.textContent('.boot'), { timeout: 15_000 }).toContain('The plane did not answer.');
  await expect.poll(() => banner.textContent()).toMatch(/^You are offline:/);
  await shot(page, 'offline-banner-reload-390');
  const findings = await axeFindings(page);
  if (findings.length) console.log(describeFindings('offline shell', findings));
  expect(findings).toEqual([]);

  await context.setOffline(false);
  await page.click('.boot button:text("Retry")');
  await page.waitForSelector('header.top');
  await expect.poll(() => banner.count()).toBe(0);
  await context.close();
}
