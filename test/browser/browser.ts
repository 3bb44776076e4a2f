import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (installed by .ci/run); playwright-core downloads no browser. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = resolve('test-results/console');

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (the CI script does)`);
  await mkdir(SHOTS, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu', '--mute-audio'] });
}

/**
 * A page that records every console error and uncaught exception: `errors` must stay empty
 * (Frigate's discipline: a console error is a failed test, not noise).
 */
export async function watchedPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`); });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  return { page, errors };
}

export const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
