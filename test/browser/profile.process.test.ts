import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, shot, startFleet, watchedPage, type Fleet, callApi } from './browser.js';

// The profile page and times with their zone (issue 22), in Chromium against what `npm start`
// runs: each role, on a desktop and a phone, chooses a zone and the 12-hour clock and reads a time
// of the feed in it with the zone named; changes the own password and signs in with it; an
// administrator is offered no Delete on the superadmin.

let fleet: Fleet, browser: Browser, token: string;
type Role = 'superadmin' | 'admin' | 'user';
const people: Record<Role, { login: string; password: string }> = {
  superadmin: { login: '', password: '' },
  admin: { login: 'profile-admin', password: 'admin-password-22' },
  user: { login: 'profile-operator', password: 'operator-password-22' },
};
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
] as const;
// A zone per role, none of them the machine's: the time read proves the choice was applied.
const ZONE: Record<Role, { zone: string; name: RegExp }> = {
  superadmin: { zone: 'Asia/Tokyo', name: /GMT\+9$/ },
  admin: { zone: 'Asia/Kolkata', name: /GMT\+5:30$/ },
  user: { zone: 'Pacific/Honolulu', name: /HST$/ },
};

const call = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  people.superadmin = { ...fleet.creds };
  const camera = (await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/cameras')).rows[0]!.id;
  for (const role of ['admin', 'user'] as const) {
    const u = await call<{ id: string }>('POST', '/api/v1/users', { ...people[role], role });
    if (role === 'user') await call('PUT', `/api/v1/users/${u.id}/grants`, { camera_ids: [camera], tag_ids: [] });
  }
  await fleet.sendEvent('profile.arrival', { camera_id: camera });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

/** `path` opened in a fresh context of `size`, signed in as `who` through the login form. */
async function signedIn(who: { login: string; password: string }, size: (typeof SIZES)[number], path: string) {
  const context = await browser.newContext({ viewport: { width: size.width, height: size.height } });
  const { page, errors } = await watchedPage(context);
  await page.goto(`${fleet.base}${path}`);
  await page.fill('input[name=login]', who.login);
  await page.fill('input[name=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('header.top');
  return { page, errors, close: () => context.close() };
}

/** The time of the feed's first row. */
async function feedTime(page: Page): Promise<string> {
  await page.waitForSelector('.feed-list .row time');
  return (await page.locator('.feed-list .row time').first().textContent()) ?? '';
}

describe('the profile, for each role at each size', () => {
  for (const role of ['superadmin', 'admin', 'user'] as const) {
    it(`${role}: a zone and 12 h chosen, the feed's times in them; the own password changed and used`, async () => {
      for (const size of SIZES) {
        const { page, errors, close } = await signedIn(people[role], size, '/profile');
        await page.getByRole('heading', { name: 'Profile' }).waitFor();
        await page.selectOption('select[name=timezone]', ZONE[role].zone);
        await page.check('input[name=clock][value="12h"]');
        await page.getByRole('button', { name: 'Save times' }).click();
        await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        await shot(page, `profile-${role}-${size.name}`);

        await page.goto(`${fleet.base}/feed`);
        const time = await feedTime(page);
        expect(time).toMatch(/\d{1,2}:\d\d:\d\d\s[AP]M /);
        expect(time).toMatch(ZONE[role].name);
        // Shown whole: the zone's name not cut off by the column (the text above is the DOM's).
        const whole = await page
          .locator('.feed-list .row time')
          .first()
          .evaluate((e) => e.scrollWidth <= e.clientWidth);
        expect(whole).toBe(true);
        await shot(page, `profile-feed-${role}-${size.name}`);

        // The own password: changed on the desktop, then the phone signs in with it.
        if (size.name === 'desktop') {
          const next = `${people[role].password}-new`;
          await page.goto(`${fleet.base}/profile`);
          await page.getByLabel('New password', { exact: true }).fill(next);
          await page.getByLabel('Confirm the new password').fill(`${next}x`);
          await page.getByRole('button', { name: 'Change password' }).click();
          await page.getByText('The two passwords differ: type the same one twice.').waitFor();
          await page.getByLabel('Confirm the new password').fill(next);
          await page.getByRole('button', { name: 'Change password' }).click();
          await page.getByRole('status').filter({ hasText: 'Password changed.' }).waitFor();
          const old = await fetch(`${fleet.base}/api/v1/auth/login`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(people[role]),
          });
          expect(old.status).toBe(401);
          people[role] = { ...people[role], password: next };
          if (role === 'superadmin') token = await loginToken(people.superadmin);
        }
        expect(errors).toEqual([]);
        await close();
      }
    }, 120_000);
  }
});

async function loginToken(who: { login: string; password: string }): Promise<string> {
  const r = await fetch(`${fleet.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(who),
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { token: string }).token;
}

describe('an administrator and the superadmin', () => {
  it('the superadmin row offers the administrator nothing; the operator row offers Delete', async () => {
    for (const size of SIZES) {
      const { page, errors, close } = await signedIn(people.admin, size, '/admin/people');
      const boss = page.locator(`tr[data-user="${people.superadmin.login}"]`);
      await boss.waitFor();
      expect(await boss.getByRole('button').count()).toBe(0);
      const op = page.locator(`tr[data-user="${people.user.login}"]`);
      await op.getByRole('button', { name: 'Delete' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel(`Type ${people.user.login} to confirm`).waitFor();
      await shot(page, `profile-people-confirm-${size.name}`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await shot(page, `profile-people-admin-${size.name}`);
      expect(errors).toEqual([]);
      await close();
    }
  }, 120_000);
});
