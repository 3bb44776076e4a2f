import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { CONSOLE_PAGES, mayOpen, type Role } from '../../src/common/console-pages.js';
import { axeFindings, describeFindings, launchChromium, shot, startFleet, type Fleet, callApi } from './browser.js';
import { offlineChecks } from './offline.checks.js';

// Issue 22, accessible: axe-core on every page of the console's table, for each role that may open
// it, at desktop (1440x900) and phone (390x844) width, against `npm start`'s real fleet: no
// serious or critical violation. A page with a parameter opens a real object of the fleet (the
// demo camera, an event of it, a dashboard with a widget, the local node). The sign-in is checked
// too, signed out. Findings are printed with their elements before the test fails.

let fleet: Fleet, browser: Browser, token: string;
const people: Record<Role, { login: string; password: string }> = {
  superadmin: { login: '', password: '' },
  admin: { login: 'a11y-admin', password: 'admin-password-22' },
  user: { login: 'a11y-operator', password: 'operator-password-22' },
};
/** The id that fills each parameter path of the table; a new one without an entry fails the test. */
const ids: Record<string, string> = {};
const VIEWPORTS = [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
];

const call = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  people.superadmin = { ...fleet.creds };
  const nodes = await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/nodes');
  const cameras = await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/cameras');
  const camera = cameras.rows[0]!.id;
  // Recorded, so that its page draws the recording timeline (the slider and its markers) by the time it is checked.
  await call('PATCH', `/api/v1/cameras/${camera}`, { recording: { retention: '1d' } });
  const board = await call<{ id: string }>('POST', '/api/v1/analytics-dashboards', {
    name: 'Entrances',
    timezone: 'UTC',
    default_period: 'last_24h',
    live_enabled: false,
    visibility: 'org',
  });
  await call('POST', `/api/v1/analytics-dashboards/${board.id}/widgets`, {
    title: 'Events',
    visualization: 'kpi',
    inline_definition: { measure: 'count_events', period: 'last_24h' },
    position: 0,
  });
  ids['/events/:id'] = await fleet.sendEvent('a11y.door', { camera_id: camera });
  ids['/cameras/:id'] = camera;
  ids['/dashboards/:id'] = board.id;
  ids['/admin/nodes/:id'] = nodes.rows[0]!.id;
  for (const role of ['admin', 'user'] as const) {
    const u = await call<{ id: string }>('POST', '/api/v1/users', {
      ...people[role],
      role,
      name: `${role} of issue 22`,
    });
    if (role === 'user') await call('PUT', `/api/v1/users/${u.id}/grants`, { camera_ids: [camera], tag_ids: [] });
  }
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

/** The address of a page of the table, its parameter filled with the fleet's object. */
function address(path: string): string {
  if (!path.includes(':')) return path;
  const id = ids[path];
  if (!id) throw new Error(`no object of the fleet for ${path}: add one to the a11y test`);
  return path.replace(/:[a-z]+/, id);
}

/** The page as a user reads it: the shell drawn and no "Loading" left in it (or 10 s), then a moment for late parts. */
async function settled(page: Page): Promise<void> {
  await page.waitForSelector('header.top, input[name=login]');
  await page
    .waitForFunction(
      () => !/Loading|Reading/.test((globalThis as any).document.querySelector('main, .login')?.textContent ?? ''),
      null,
      { timeout: 10_000 },
    )
    .catch(() => {});
  await page.waitForTimeout(400);
}

describe('axe-core on every page, every role, both widths', () => {
  for (const role of ['superadmin', 'admin', 'user'] as const) {
    for (const viewport of VIEWPORTS) {
      it(`${role} at ${viewport.width}x${viewport.height}: no serious or critical violation`, async () => {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();
        const found: string[] = [];
        const check = async (where: string) => {
          const findings = await axeFindings(page);
          if (findings.length) found.push(describeFindings(where, findings));
          // Every page of every role at both widths is kept as a picture, to be looked at (issue 22).
          await shot(page, `walk-${role}-${viewport.width}-${where.replace(/\W+/g, '_')}`);
        };
        await page.goto(`${fleet.base}/login`);
        await settled(page);
        await check('/login (signed out)');
        await page.fill('input[name=login]', people[role].login);
        await page.fill('input[name=password]', people[role].password);
        await page.click('button[type=submit]');
        await page.waitForSelector('header.top');
        const pages = CONSOLE_PAGES.filter((p) => mayOpen(p, role));
        for (const p of pages) {
          await page.goto(`${fleet.base}${address(p.path)}`);
          await settled(page).catch(async (e: Error) => {
            await shot(page, `a11y-${role}-${viewport.width}-unsettled`);
            throw new Error(`${p.path}: ${e.message}\n${(await page.textContent('body'))?.slice(0, 500)}`);
          });
          await check(p.path);
        }
        // A page of another role: the shell's refusal is a page too.
        const refused = CONSOLE_PAGES.find((p) => !mayOpen(p, role));
        if (refused) {
          await page.goto(`${fleet.base}${address(refused.path)}`);
          await settled(page);
          await check(`${refused.path} (not available)`);
        }
        if (found.length) console.log(`axe, ${role} ${viewport.width}px:\n${found.join('\n')}`);
        console.log(
          `axe, ${role} ${viewport.width}px: ${pages.length + 1} pages checked, ${found.length} with findings`,
        );
        expect(found).toEqual([]);
        await context.close();
      }, 300_000);
    }
  }
});

describe('installed, then offline', () => {
  it(
    'the worker keeps the shell: offline, the console still opens and says so; back online, it reads again',
    () => offlineChecks(browser, fleet, people.user),
    120_000,
  );
});
