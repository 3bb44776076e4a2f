import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium, shot, startFleet, unexpected, watchedPage, type Fleet } from './browser.js';

// The administrator's screens of the console (issue 15, in part): module tokens and the plane
// settings, in Debian's Chromium against what `npm start` runs.

let fleet: Fleet, browser: Browser, context: BrowserContext;

// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
});

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

const sendWith = (secret: string) =>
  fetch(`${fleet.base}/api/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events: [{ detector: 'admin.check', occurred_at: new Date().toISOString() }] }),
  });

describe('module tokens', () => {
  it("a new token's secret is shown once; rotation shows a new one and the old stops working; disable", async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/admin/tokens');
    await page.fill('input[name=token-name]', 'browser-lpr');
    await page.click('button:text("Create token")');
    const first = (await page.textContent('[data-testid=secret]'))!;
    expect(first.length).toBeGreaterThan(20);
    expect((await sendWith(first)).status).toBe(200);
    await shot(page, 'admin-token-secret');
    await page.click('button:text("Done")');
    expect(await page.locator('[data-testid=secret]').count()).toBe(0);
    await page.reload();
    await page.waitForSelector('tr[data-token="browser-lpr"]');
    expect(await page.content()).not.toContain(first);

    await page.locator('tr[data-token="browser-lpr"] button:text("Rotate")').click();
    const second = (await page.textContent('[data-testid=secret]'))!;
    expect(second).not.toBe(first);
    expect((await sendWith(first)).status).toBe(401);
    expect((await sendWith(second)).status).toBe(200);
    await page.click('button:text("Done")');
    await page.locator('tr[data-token="browser-lpr"] button:text("Disable")').click();
    await expect.poll(() => page.locator('tr[data-token="browser-lpr"] td').nth(3).textContent()).toBe('disabled');
    await shot(page, 'admin-tokens');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('fleet monitor', () => {
  it("the summary with its alert conditions, the node's telemetry, the plane's process charts and the log tail", async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/admin/monitor');
    await expect
      .poll(() => page.textContent('[data-testid=summary]'), { timeout: 15_000 })
      .toContain('1/1 nodes answering');
    await expect.poll(() => page.textContent('[role=status]')).toMatch(/^No alert condition in the last sweep/);
    await expect
      .poll(() => page.locator('tr[data-node="local node"] td').nth(1).textContent(), { timeout: 15_000 })
      .toBe('answering');
    expect(await page.locator('.charts canvas').count()).toBeGreaterThanOrEqual(4);
    await page.selectOption('select[aria-label="log level"]', 'info');
    await page.waitForSelector('[data-testid=log] .log-info');
    await page.fill('input[name=log-q]', 'database');
    await page.click('button:text("Filter")');
    await expect
      .poll(async () => {
        const lines = await page.locator('[data-testid=log] > div').allTextContents();
        return lines.length > 0 && lines.every((l) => l.includes('database'));
      })
      .toBe(true);
    await shot(page, 'admin-monitor');
    // The node's own page through the plane: licence, viewers, its log, its configuration on demand.
    await page.click('tr[data-node="local node"] a');
    await page.waitForURL(/\/admin\/nodes\/[0-9a-f-]{36}$/);
    // The plane asks the node (a round trip each, retried on failure): longer than the poll's 1 s on a loaded machine.
    await expect.poll(() => page.textContent('[data-testid=licence]'), { timeout: 20_000 }).toMatch(/^Licence: [a-z]/);
    await page.waitForSelector('[data-testid=node-log] div');
    // A change of the log level makes a version; rolling back to the one before applies it as a new one.
    await page.waitForSelector('[data-testid=history] tr');
    const first = await page.locator('[data-testid=history] tr').count();
    await page.selectOption('select[name=node-level]', 'debug');
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/logging') && r.request().method() === 'PATCH'),
      page.click('form.inline button:text("Set")'),
    ]);
    // The page reads the history again after the change: the new version shows.
    await expect.poll(() => page.locator('[data-testid=history] tr').count(), { timeout: 10_000 }).toBe(first + 1);
    const versions = first + 1;
    page.once('dialog', (d) => void d.accept());
    await page.locator('[data-testid=history] tr').nth(1).locator('button:text("Roll back to this")').click();
    await expect.poll(() => page.textContent('[role=status].note')).toMatch(/^Version \d+ applied as version \d+\.$/);
    await expect.poll(() => page.locator('[data-testid=history] tr').count()).toBe(versions + 1);
    await page.click('button:text("Show the configuration (audited)")');
    await expect.poll(() => page.textContent('[data-testid=node-config]')).toContain('stream ');
    await shot(page, 'admin-node');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('event templates', () => {
  it('validates a document before saving, says what is wrong, creates it and shows the detectors its mask matched', async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/admin/templates');
    await page.click('button:text("+ New template")');
    await page.fill('textarea[name=template-doc]', JSON.stringify({ title: { en: 'No mask' } }));
    await page.click('button:text("Validate")');
    // The plane's code, said as a sentence (web/src/api/error-words.ts).
    await expect.poll(() => page.textContent('[role=alert]')).toBe('The template needs a detector mask to match.');
    await page.fill(
      'textarea[name=template-doc]',
      JSON.stringify({
        detector_match: 'demo.*',
        title: { en: 'Demo event' },
        list_fields: [{ key: 'zone', label: 'Zone', source: '/zone' }],
      }),
    );
    await page.click('button:text("Validate")');
    await expect.poll(() => page.textContent('[role=alert]')).toMatch(/^Valid: matches demo\.\*, \d+ bytes\.$/);
    await page.fill('input[name=template-name]', 'Demo events');
    await page.click('button:text("Create")');
    await expect.poll(() => page.textContent('[role=alert]')).toBe('Saved (version 1).');
    await expect
      .poll(() => page.textContent('[data-testid=matches]'), { timeout: 10_000 })
      .toMatch(/^Last 7 days: .*demo\./);
    await page.locator('li[data-template="Node unreachable"] button').click();
    expect(await page.textContent('.editor')).toContain('its override may set title and ignore_event only');
    await shot(page, 'admin-templates');
    expect(unexpected(errors, [{ status: 400, path: '/api/v1/templates/validate' }])).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('people and usage', () => {
  it('adds an operator, grants a camera, disables them; adds a tag; shows the usage against the quotas', async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/admin/people');
    await page.fill('input[name=user-login]', 'op-north');
    await page.fill('input[name=user-password]', 'operator-password-1');
    await page.click('button:text("Add person")');
    await page.waitForSelector('tr[data-user="op-north"]');
    await page.locator('tr[data-user="op-north"] button:text("Cameras")').click();
    await page.locator('[data-testid=grants] label', { hasText: 'demo camera' }).locator('input').check();
    await page.click('button:text("Save grants")');
    await page.waitForSelector('[data-testid=grants] .note');
    const token = await fleet.session();
    const users = (await (
      await fetch(`${fleet.base}/api/v1/users?limit=500`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { rows: Array<{ id: string; login: string }> };
    const id = users.rows.find((u) => u.login === 'op-north')!.id;
    const grants = (await (
      await fetch(`${fleet.base}/api/v1/users/${id}/grants`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { camera_ids: string[] };
    expect(grants.camera_ids).toHaveLength(1);
    await page.locator('tr[data-user="op-north"] button:text("Disable")').click();
    await expect.poll(() => page.locator('tr[data-user="op-north"] td').nth(3).textContent()).toBe('disabled');
    await page.fill('input[name=tag-name]', 'north gate');
    await page.click('button:text("Add tag")');
    await page.waitForSelector('li[data-tag="north gate"]');
    await page.fill('input[aria-label="tag north gate"]', 'north gates');
    await page.locator('input[aria-label="tag north gate"]').blur();
    await page.waitForSelector('li[data-tag="north gates"]');
    await shot(page, 'admin-people');
    await fleet.open(page, '/admin/orgs');
    await page.fill('input[name=org-name]', 'Campus East');
    await page.click('button:text("Add organisation")');
    await page.waitForSelector('tr[data-org="Campus East"]');
    await page.fill('input[aria-label="Campus East max_cameras"]', '40');
    await page.locator('input[aria-label="Campus East max_cameras"]').blur();
    const token2 = await fleet.session();
    await expect
      .poll(
        async () =>
          (
            (await (
              await fetch(`${fleet.base}/api/v1/orgs?limit=500`, { headers: { authorization: `Bearer ${token2}` } })
            ).json()) as { rows: Array<{ name: string; max_cameras: number | null }> }
          ).rows.find((o) => o.name === 'Campus East')?.max_cameras,
      )
      .toBe(40);
    await fleet.open(page, '/admin/usage');
    await expect.poll(() => page.textContent('tr[data-usage=cameras_count]')).toMatch(/^Cameras1 of /);
    await shot(page, 'admin-usage');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);
});

describe('plane settings', () => {
  it('shows the certificate and the storage figures; a validation error is shown; the storage test answers; a valid change saves', async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/admin/settings');
    await page.waitForSelector('text=Evidence storage');
    expect(await page.textContent('section.admin')).toContain('off: ');
    // A watermark above the next: the plane's validation text, inside a sentence.
    await page.fill('input[name=low_watermark_percent]', '90');
    await page.click('button:text("Save storage")');
    await expect
      .poll(() => page.textContent('[role=alert]'))
      .toBe('The plane refused the value: watermarks must satisfy 1 <= low < high < critical <= 99.');
    await shot(page, 'admin-settings-error');
    await page.fill('input[name=low_watermark_percent]', '60');
    await page.click('button:text("Test storage")');
    await expect
      .poll(() => page.textContent('[data-testid=storage-test]'))
      .toMatch(/^The storage answers: a probe was written, read back and deleted\.$/);
    await page.click('button:text("Save storage")');
    await expect.poll(() => page.textContent('[role=alert]')).toBe('Saved.');
    const token = await fleet.session();
    // Watermarks apply at the next start: the change shows in the audit, not yet in the effective values.
    const audit = (await (
      await fetch(`${fleet.base}/api/v1/audit?action=settings.update&limit=5`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { rows: Array<{ params: { sections: string[] } }> };
    expect(audit.rows.map((r) => r.params.sections)).toContainEqual(['evidence_storage']);
    await shot(page, 'admin-settings');
    expect(unexpected(errors, [{ status: 400, path: '/api/v1/settings/plane' }])).toEqual([]);
    await page.close();
  }, 60_000);

  it("at a phone's width the admin pages lay out", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const { page, errors } = await watchedPage(phone);
    await fleet.open(page, '/admin/settings');
    await page.waitForSelector('text=Evidence storage');
    await shot(page, 'admin-settings-mobile');
    await fleet.open(page, '/admin/tokens');
    await page.waitForSelector('tr[data-token]');
    await shot(page, 'admin-tokens-mobile');
    expect(errors).toEqual([]);
    await phone.close();
  }, 60_000);
});
