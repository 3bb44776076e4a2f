import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { axeFindings, launchChromium, shot, startFleet, watchedPage, type Fleet, callApi } from './browser.js';

// Issue 22, "Cameras and nodes": an administrator adds a camera in the console, fed by the node's
// own test picture as `npm start`'s demo camera is (src/start/main.ts), tests its source and sees
// it live; the page at phone width; an operator is turned away; the superadmin's nodes page.
// Debian's Chromium against what `npm start` runs.

let fleet: Fleet, browser: Browser, token: string;
let nodeId = '';
const ADMIN = { login: 'cameras-admin', password: 'admin-password-22' };
const OPERATOR = { login: 'cameras-operator', password: 'operator-password-22' };
const SOURCE = 'testsrc://browser?size=320x240&rate=10&bitrate=200';

const call = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, token, method, path, body);

// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  token = await fleet.session();
  nodeId = (await call<{ rows: Array<{ id: string }> }>('GET', '/api/v1/nodes')).rows[0]!.id;
  await call('POST', '/api/v1/users', { ...ADMIN, role: 'admin', name: 'Camera administrator' });
  await call('POST', '/api/v1/users', { ...OPERATOR, role: 'user', name: 'Camera operator' });
});

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

async function signedIn(who: { login: string; password: string }, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  const { page, errors } = await watchedPage(context);
  await page.goto(`${fleet.base}/admin/cameras`);
  await page.fill('input[name=login]', who.login);
  await page.fill('input[name=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForSelector('header.top');
  return { page, errors, context };
}

const stateOf = (page: Page, name: string) =>
  page.locator(`tr[data-camera="${name}"] [data-testid=camera-state]`).textContent();

describe('cameras page', () => {
  it('admin at 1440x900: adds a camera on the node with its test source, tests it, and sees it live', async () => {
    const { page, errors, context } = await signedIn(ADMIN, { width: 1440, height: 900 });
    await expect.poll(() => stateOf(page, 'demo camera'), { timeout: 15_000 }).toBe('live');
    await page.getByRole('button', { name: 'Add camera' }).click();
    await page.getByLabel('Name', { exact: true }).fill('browser camera');
    // The administrator reads no node list: the node of its one camera is offered already.
    expect(await page.getByLabel('Node', { exact: true }).inputValue()).toBe(nodeId);
    await page.getByLabel('Main source').fill(SOURCE);
    await page.getByLabel('Retention days').fill('3');
    await page.getByRole('button', { name: 'Test source' }).click();
    await expect
      .poll(() => page.locator('.camera-form .probe').textContent(), { timeout: 15_000 })
      .toBe('h264, 320×240, 10 fps, no audio.');
    await shot(page, 'cameras-add-1440');
    expect(await axeFindings(page)).toEqual([]);
    const added = Date.now();
    await page.getByRole('button', { name: 'Save camera' }).click();
    await page.getByText('browser camera was added').waitFor();
    await expect.poll(() => stateOf(page, 'browser camera'), { timeout: 30_000, interval: 500 }).toBe('live');
    const secs = (Date.now() - added) / 1000;
    expect(secs).toBeLessThan(30);
    console.log(`browser camera live in the console ${secs.toFixed(1)} s after Save`);
    await shot(page, 'cameras-live-1440');
    const cams = await call<{ rows: Array<{ name: string; status: string; recording: unknown }> }>(
      'GET',
      '/api/v1/cameras',
    );
    expect(cams.rows.find((c) => c.name === 'browser camera')).toMatchObject({
      status: 'live',
      recording: { retention: '3d' },
    });
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('admin at 390x844: the list, the form and a deletion with the name typed fit the phone', async () => {
    const { page, errors, context } = await signedIn(ADMIN, { width: 390, height: 844 });
    await page.locator('tr[data-camera="browser camera"]').waitFor();
    // Runs in the page (no DOM types here): how far the page is wider than the phone's screen.
    const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await shot(page, 'cameras-list-390');
    await page.getByRole('button', { name: 'Add camera' }).click();
    await page.getByLabel('Main source').waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await shot(page, 'cameras-form-390');
    expect(await axeFindings(page)).toEqual([]);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('tr[data-camera="browser camera"]').getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Delete' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Type browser camera to confirm').fill('browser camera');
    await shot(page, 'cameras-delete-390');
    await confirm.click();
    await page.getByText('browser camera was deleted.').waitFor();
    expect(await page.locator('tr[data-camera="browser camera"]').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('an operator opening /admin/cameras reads "Not available to your role"', async () => {
    const { page, errors, context } = await signedIn(OPERATOR, { width: 1440, height: 900 });
    await page.getByText('Not available to your role.').waitFor();
    expect(await page.getByRole('button', { name: 'Add camera' }).count()).toBe(0);
    await shot(page, 'cameras-operator-1440');
    expect(await axeFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});

describe('nodes page', () => {
  it('superadmin at 1440x900: the local node answering, with its licence and a link to its page', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/admin/nodes');
    const row = page.locator('tr[data-node="local node"]');
    await expect.poll(() => row.getByTestId('node-state').textContent(), { timeout: 15_000 }).toBe('answering');
    await expect.poll(() => row.locator('td').nth(2).textContent(), { timeout: 10_000 }).not.toBe('…');
    expect(await row.getByRole('link', { name: 'local node' }).getAttribute('href')).toBe(`/admin/nodes/${nodeId}`);
    await shot(page, 'nodes-1440');
    expect(await axeFindings(page)).toEqual([]);
    await page.getByRole('button', { name: 'Add node' }).click();
    await page.getByLabel('Write token').waitFor();
    expect(await axeFindings(page)).toEqual([]);
    await shot(page, 'nodes-add-1440');
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});
