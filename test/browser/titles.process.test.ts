import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { until } from '../start/launcher.js';
import { launchChromium, shot, startFleet, watchedPage, type Fleet, callApi } from './browser.js';

// Issue 21 §1: the console went blank for every role as soon as the feed held an event with a
// localised title (every system event, every event stamped by a template with a title object).
// Here against `npm start`'s real fleet: a camera whose source is unreachable raises
// system.camera_offline, a template with titles in three languages stamps a module's event; each
// role sees both in the feed and opens both cards, at desktop and phone width, in two languages.

let fleet: Fleet, browser: Browser, token: string;
let offlineId: string, stampedId: string;
const TITLE = { en: 'Gate opened', de: 'Tor geöffnet', ja: '門が開きました' };
const people = [
  { role: 'superadmin', login: '', password: '' },
  { role: 'admin', login: 'titles-admin', password: 'admin-password-21' },
  { role: 'user', login: 'titles-operator', password: 'operator-password-21' },
];

const call = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  people[0]!.login = fleet.creds.login;
  people[0]!.password = fleet.creds.password;
  const nodes = await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/nodes');
  // Nothing listens on port 9 of the loopback: the node's ingest fails and the sweeper sees it.
  const cam = await call<{ id: string }>('POST', '/api/v1/cameras', {
    name: 'Unreachable <b>gate</b> camera',
    node_id: nodes.rows[0]!.id,
    main_source: 'rtsp://127.0.0.1:9/none',
  });
  await call('POST', '/api/v1/templates', {
    name: 'Gate (i18n)',
    doc: { detector_match: 'browser.gate*', title: TITLE },
  });
  stampedId = await fleet.sendEvent('browser.gate.open', { camera_id: cam.id, severity: 1 });
  for (const p of people.slice(1)) {
    const u = await call<{ id: string }>('POST', '/api/v1/users', {
      login: p.login,
      password: p.password,
      role: p.role,
      name: `${p.role} of issue 21`,
    });
    if (p.role === 'user') await call('PUT', `/api/v1/users/${u.id}/grants`, { camera_ids: [cam.id], tag_ids: [] });
  }
  offlineId = await until(
    'system.camera_offline of the unreachable camera',
    async () => {
      const page = await call<{ rows: Array<{ id: string; camera_id: string | null }> }>(
        'GET',
        '/api/v1/events?detector=system.camera_offline&limit=50',
      );
      return page.rows.find((r) => r.camera_id === cam.id)?.id;
    },
    fleet.running,
    90_000,
  );
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

describe('events with localised titles, for every role', () => {
  for (const [i, p] of people.entries()) {
    // Each role in another language and width: the title follows the browser's language.
    const locale = ['de-DE', 'en-GB', 'ja-JP'][i]!;
    const viewport = i === 2 ? { width: 390, height: 844 } : { width: 1440, height: 900 };
    it(`${p.role} (${locale}, ${viewport.width}px): the feed shows both events and their cards open`, async () => {
      const context = await browser.newContext({ viewport, locale });
      const { page, errors } = await watchedPage(context);
      await page.goto(`${fleet.base}/feed`);
      await page.fill('input[name=login]', p.login);
      await page.fill('input[name=password]', p.password);
      await page.click('button[type=submit]');
      // At 390 px the pages hide behind the Menu: the header's navigation is there, not shown.
      await page.waitForSelector('header.top nav', { state: 'attached' });
      const stamped = page.locator(`.row[data-event="${stampedId}"]`);
      const offline = page.locator(`.row[data-event="${offlineId}"]`);
      await stamped.waitFor();
      await offline.waitFor();
      const expected = locale.startsWith('de') ? TITLE.de : locale.startsWith('ja') ? TITLE.ja : TITLE.en;
      expect(await stamped.locator('.what').textContent()).toBe(expected);
      expect((await offline.locator('.what').textContent())!.length).toBeGreaterThan(0);
      expect(await page.locator('.item-failed').count()).toBe(0);
      await shot(page, `titles-feed-${p.role}-${viewport.width}`);
      await stamped.click();
      await page.waitForSelector('article.card h2');
      expect(await page.locator('article.card h2').textContent()).toContain(expected);
      await shot(page, `titles-card-${p.role}-${viewport.width}`);
      await page.goto(`${fleet.base}/events/${offlineId}`);
      await page.waitForSelector('article.card h2');
      expect(await page.locator('article.card h2').textContent()).not.toBe('');
      expect(await page.locator('.item-failed').count()).toBe(0);
      // The camera's hostile name is text, not markup.
      expect(await page.locator('article.card .meta b').count()).toBe(0);
      await shot(page, `titles-offline-card-${p.role}-${viewport.width}`);
      expect(errors).toEqual([]);
      await context.close();
    }, 60_000);
  }
});
