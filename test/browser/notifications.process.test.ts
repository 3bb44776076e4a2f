import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { callApi, launchChromium, shot, startFleet, unexpected, watchedPage, type Fleet } from './browser.js';
import { Receiver, verifySignature } from '../plane/notifications/receiver.js';

// Issue 24, the notification pages as an organisation's administrator uses them, in Debian's Chromium
// against what `npm start` runs: a webhook channel to a real receiver on loopback (allowed without
// [network] allow_private_targets, which is about link-local and metadata hosts), its test message
// signed with the secret typed; a rule on a detector mask; a module's matching event delivered and
// listed; failed (503), dead (a refused test message; a 410) deliveries made for real, Retry on dead
// ones only; the live alert's toast. 1440x900, the key screens at 390x844.

const ADMIN = { login: 'notify-admin', password: 'admin-password-24' };
const SECRET = 'webhook-secret-typed-24';

let fleet: Fleet, browser: Browser, desktop: BrowserContext, receiver: Receiver;
let adminToken: string, moduleSecret: string, cameraId: string;

const api = <T>(method: string, path: string, body?: unknown) => callApi<T>(fleet.base, adminToken, method, path, body);

type Delivery = { id: string; event_id: string | null; rule_id: string | null; state: string; last_error: string };
const deliveries = async (query = '') =>
  (await api<{ rows: Delivery[] }>('GET', `/api/v1/notification-deliveries?limit=500${query}`)).rows;
/** The state of the one delivery of an event (the rule's one channel). */
const stateOf = async (eventId: string) => (await deliveries(`&event_id=${eventId}`))[0]?.state;
/** What the receiver got for an event (answered 2xx). */
const gotFor = (eventId: string) => receiver.got.filter((g) => g.json.event.id === eventId);
const tab = (page: Page, name: string) => page.click(`nav[aria-label=Notifications] a:text("${name}")`);

/** One event sent with the module token the administrator made, its id. */
async function sendEvent(detector: string, severity: number, camera = true): Promise<string> {
  const event = { detector, severity, occurred_at: new Date().toISOString(), camera_id: camera ? cameraId : undefined };
  const r = await callApi<{ results: Array<{ id?: string }> }>(fleet.base, moduleSecret, 'POST', '/api/v1/events', {
    events: [event],
  });
  if (!r.results[0]?.id) throw new Error(`event refused: ${JSON.stringify(r)}`);
  return r.results[0].id;
}

/** `path` opened signed in as the organisation's administrator (the session lives in the context's localStorage). */
const open = (page: Page, path: string) => fleet.open(page, path, ADMIN);

const cells = (page: Page, row: string) => page.locator(row).locator('td').allTextContents();
/** The values of a form's fields by name, as the page holds them. */
const values = (form: Locator, names: string[]) =>
  Promise.all(names.map((n) => form.locator(`[name=${n}]`).inputValue()));

/** How far the page is wider than the screen (0: no sideways scrolling). */
const overflow = (page: Page) => page.evaluate('document.documentElement.scrollWidth - innerWidth') as Promise<number>;

// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  receiver = await new Receiver().up();
  const root = await fleet.session();
  await callApi(fleet.base, root, 'POST', '/api/v1/users', { ...ADMIN, role: 'admin', name: 'Notifications admin' });
  const login = await fetch(`${fleet.base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ADMIN),
  });
  adminToken = ((await login.json()) as { token: string }).token;
  moduleSecret = (await api<{ secret: string }>('POST', '/api/v1/module-tokens', { name: 'door-module' })).secret;
  cameraId = (await api<{ rows: Array<{ id: string }> }>('GET', '/api/v1/cameras')).rows[0]!.id;
  desktop = await browser.newContext({ viewport: { width: 1440, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await receiver?.down();
  await fleet?.stop();
});

describe('notifications in the console, as an organisation administrator', () => {
  it('channels: a webhook created (a refused URL keeps the form), its test message signed, edited, disabled and enabled', async () => {
    const { page, errors } = await watchedPage(desktop);
    await open(page, '/admin/notifications/channels');
    await expect.poll(() => page.textContent('section.admin')).toContain('No channel yet');
    await page.click('button:text("New channel")');
    const typed = {
      'channel-name': 'Ops webhook',
      url: 'ftp://127.0.0.1/hook',
      secret: SECRET,
      headers: 'X-Team: north',
    };
    for (const [name, value] of Object.entries(typed)) await page.fill(`form.channel-form [name=${name}]`, value);
    await page.click('button:text("Create channel")');
    await expect.poll(() => page.textContent('form [role=alert]')).toBe('The address is not a valid http(s) URL.');
    expect(await values(page.locator('form.channel-form'), Object.keys(typed))).toEqual(Object.values(typed));
    await shot(page, 'notifications-channel-refused');

    await page.fill('input[name=url]', receiver.url);
    await page.click('button:text("Create channel")');
    await page.waitForSelector('tr[data-channel="Ops webhook"]');
    expect(await cells(page, 'tr[data-channel="Ops webhook"]')).toEqual(
      expect.arrayContaining(['Ops webhook', 'Webhook', receiver.url, 'enabled']),
    );

    // Test: one message now, its outcome in words; the receiver got it signed with the secret typed.
    const row = page.locator('tr[data-channel="Ops webhook"]');
    await row.locator('button:text("Test")').click();
    await expect
      .poll(() => row.locator('.test-outcome').textContent(), { timeout: 20_000 })
      .toBe('The test message was delivered.');
    const [test, ...more] = receiver.got;
    expect(more).toEqual([]);
    expect(verifySignature(SECRET, test!.body, test!.headers['x-argus-signature'] as string)).toBe(true);
    expect(test!.headers).toMatchObject({ 'x-argus-delivery': test!.json.dedupe_key, 'x-team': 'north' });
    expect(test!.json).toMatchObject({ rule: null, event: { detector: 'argus.notification_test' } });
    await shot(page, 'notifications-channel-tested');

    // Edit: the secret is write-only (the form says it is configured and left empty keeps it).
    await row.locator('button:text("Edit")').click();
    const form = page.locator('form[aria-label="Edit channel Ops webhook"]');
    await form.waitFor();
    expect(await form.textContent()).toContain('configured: empty keeps it');
    expect(await values(form, ['secret', 'headers'])).toEqual(['', 'X-Team: north']);
    expect(await form.locator('select[name=kind]').isDisabled()).toBe(true);
    await form.locator('input[name=channel-name]').fill('Ops webhook north');
    await form.locator('textarea[name=headers]').fill('X-Team: south');
    await shot(page, 'notifications-channel-edit');
    await form.locator('button:text("Save channel")').click();
    await page.waitForSelector('tr[data-channel="Ops webhook north"]');
    const renamed = page.locator('tr[data-channel="Ops webhook north"]');
    await renamed.locator('button:text("Test")').click();
    await expect
      .poll(() => renamed.locator('.test-outcome').textContent(), { timeout: 20_000 })
      .toBe('The test message was delivered.');
    expect(receiver.got).toHaveLength(2);
    const again = receiver.got[1]!;
    expect(again.headers['x-team']).toBe('south');
    // The secret kept through the edit still signs.
    expect(verifySignature(SECRET, again.body, again.headers['x-argus-signature'] as string)).toBe(true);

    await renamed.locator('button:text("Disable")').click();
    await expect.poll(() => renamed.locator('td').nth(3).textContent()).toBe('disabled');
    const stored = async () =>
      (await api<{ rows: Array<{ name: string; enabled: boolean }> }>('GET', '/api/v1/notification-channels')).rows[0];
    expect(await stored()).toMatchObject({ name: 'Ops webhook north', enabled: false });
    await shot(page, 'notifications-channel-disabled');
    await renamed.locator('button:text("Enable")').click();
    await expect.poll(() => renamed.locator('td').nth(3).textContent()).toBe('enabled');
    expect(await stored()).toMatchObject({ enabled: true });
    await shot(page, 'notifications-channels');
    expect(unexpected(errors, [{ status: 400, path: '/api/v1/notification-channels' }])).toEqual([]);
    await page.close();
  }, 90_000);

  it('rules: a refused form says why and keeps what was typed; a rule on door.* to the channel', async () => {
    const { page, errors } = await watchedPage(desktop);
    await open(page, '/admin/notifications');
    await expect.poll(() => page.textContent('section.admin')).toContain('No rule yet');
    await page.click('button:text("New rule")');
    const form = page.locator('form[aria-label="New rule"]');
    await form.locator('input[name=rule-name]').fill('Doors');
    await form.locator('select[name=severity-min]').selectOption({ label: 'warning' });
    await form.locator('input[name=detectors]').fill('door.*');
    await form.locator('input[name=cooldown]').fill('0');
    // No channel chosen.
    await form.locator('button:text("Create rule")').click();
    await expect.poll(() => form.locator('[role=alert]').textContent()).toBe('Choose 1 to 8 channels for the rule.');
    const fields = ['rule-name', 'severity-min', 'detectors', 'cooldown'];
    expect(await values(form, fields)).toEqual(['Doors', '2', 'door.*', '0']);
    await shot(page, 'notifications-rule-refused');

    // A name of spaces only passes the browser's `required` but not the plane.
    await form.locator('label', { hasText: 'Ops webhook north' }).locator('input').check();
    await form.locator('input[name=rule-name]').fill('   ');
    await form.locator('button:text("Create rule")').click();
    await expect
      .poll(() => form.locator('[role=alert]').textContent())
      .toBe('The name is not valid: use 1 to 128 characters.');
    expect(await values(form, fields)).toEqual(['   ', '2', 'door.*', '0']);
    expect(await form.locator('label', { hasText: 'Ops webhook north' }).locator('input').isChecked()).toBe(true);
    await shot(page, 'notifications-rule-bad-name');

    await form.locator('input[name=rule-name]').fill('Doors');
    await form.locator('button:text("Create rule")').click();
    await page.waitForSelector('tr[data-rule="Doors"]');
    expect(await page.locator('form.rule-form').count()).toBe(0);
    expect((await cells(page, 'tr[data-rule="Doors"]')).slice(0, 7).join(' | ')).toBe(
      'Doors | warning or above; detectors door.* | always | none | Ops webhook north | 0 | enabled',
    );
    await shot(page, 'notifications-rules');
    expect(unexpected(errors, [{ status: 400, path: '/api/v1/notification-rules' }])).toEqual([]);
    await page.close();
  }, 90_000);

  it('a matching event reaches the receiver signed; the delivery log lists it sent, by state and by rule', async () => {
    const rule = (await api<{ rows: Array<{ id: string }> }>('GET', '/api/v1/notification-rules')).rows[0]!;
    // Not matching (another detector; below the severity), then matching: the plan is written with each event.
    await sendEvent('motion.person', 3);
    await sendEvent('door.forced', 1);
    const eventId = await sendEvent('door.forced', 3);
    await expect.poll(() => gotFor(eventId).length, { timeout: 30_000 }).toBe(1);
    const got = gotFor(eventId)[0]!;
    expect(verifySignature(SECRET, got.body, got.headers['x-argus-signature'] as string)).toBe(true);
    expect(got.headers['x-argus-delivery']).toBe(got.json.dedupe_key);
    expect(got.json.rule).toEqual({ id: rule.id, name: 'Doors' });
    expect(got.json.event).toMatchObject({ detector: 'door.forced', severity: 3, camera_name: 'demo camera' });
    expect(String(got.json.event.card_url)).toMatch(new RegExp(`/events/${eventId}$`));
    await expect.poll(() => stateOf(eventId), { timeout: 15_000 }).toBe('sent');
    // Only the matching event made a delivery for the rule.
    const ofRule = await deliveries(`&rule_id=${rule.id}`);
    expect(ofRule.map((d) => d.event_id)).toEqual([eventId]);

    const { page, errors } = await watchedPage(desktop);
    await open(page, '/admin/notifications/deliveries');
    const delivery = `tr[data-delivery="${ofRule[0]!.id}"]`;
    await page.waitForSelector(delivery);
    // Two test messages and the event's delivery.
    expect(await page.locator('tr[data-delivery]').count()).toBe(3);
    expect((await cells(page, delivery)).slice(1, 6)).toEqual(['Open', 'Doors', 'Ops webhook north', 'sent', '1']);
    expect(await page.locator(`${delivery} button`).count()).toBe(0);
    await shot(page, 'notifications-deliveries');

    await page.selectOption('select[name=rule]', { label: 'Doors' });
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBe(1);
    await page.selectOption('select[name=rule]', { label: 'Any rule' });
    await page.selectOption('select[name=state]', { label: 'sent' });
    await expect.poll(() => page.locator('tr[data-delivery]').count()).toBe(3);
    await page.selectOption('select[name=state]', { label: 'gave up' });
    await expect.poll(() => page.textContent('section.admin')).toContain('No delivery with these filters.');
    await shot(page, 'notifications-deliveries-none');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('a receiver answering 503 leaves a delivery failed (retried) and a test message dead; Retry only on the dead one', async () => {
    receiver.status = 503;
    const eventId = await sendEvent('door.opened', 4);
    await expect.poll(() => stateOf(eventId), { timeout: 30_000 }).toBe('failed');
    const failed = (await deliveries(`&event_id=${eventId}`))[0]!;
    expect(failed.last_error).toBe('the receiver answered 503');

    // A test message is not retried: refused once, it is dead at once.
    const { page, errors } = await watchedPage(desktop);
    await open(page, '/admin/notifications/channels');
    const channel = page.locator('tr[data-channel="Ops webhook north"]');
    await channel.locator('button:text("Test")').click();
    await expect
      .poll(() => channel.locator('.test-outcome').textContent(), { timeout: 20_000 })
      .toMatch(/^The test message was not delivered: .*503.*\.$/);
    await shot(page, 'notifications-channel-test-refused');
    const dead = (await deliveries('&state=dead')).filter((d) => d.rule_id === null);
    expect(dead).toHaveLength(1);

    await tab(page, 'Delivery log');
    await page.selectOption('select[name=state]', { label: 'failed, will retry' });
    const failedRow = `tr[data-delivery="${failed.id}"]`;
    await page.waitForSelector(failedRow);
    // Still failing while the receiver answers 503: the row stays failed, with its error and its next attempt.
    const fr = await cells(page, failedRow);
    expect([...fr.slice(2, 5), fr[6]]).toEqual(['Doors', 'Ops webhook north', 'failed, will retry', failed.last_error]);
    expect(await page.locator(`${failedRow} button:text("Retry")`).count()).toBe(0);
    // The plane refuses it too (document 4 §13: retry requeues a dead delivery only).
    await expect(api('POST', `/api/v1/notification-deliveries/${failed.id}/retry`)).rejects.toThrow(
      /409 .*delivery_not_dead/,
    );
    await shot(page, 'notifications-deliveries-failed');

    await page.selectOption('select[name=state]', { label: 'gave up' });
    const deadRow = `tr[data-delivery="${dead[0]!.id}"]`;
    await page.waitForSelector(deadRow);
    expect((await cells(page, deadRow)).slice(1, 5)).toEqual(['none', 'test message', 'Ops webhook north', 'gave up']);
    await shot(page, 'notifications-deliveries-dead');

    // The receiver is back: Retry sends the dead test message again; the failed one goes out at its next attempt.
    receiver.status = 200;
    await page.locator(`${deadRow} button:text("Retry")`).click();
    await expect.poll(() => page.locator('tr[data-delivery]').count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(async () => (await deliveries(`&state=dead`)).length, { timeout: 30_000 }).toBe(0);
    // Backoff: 5 s doubling with jitter from the first failure; several attempts may have failed meanwhile.
    await expect.poll(() => stateOf(eventId), { timeout: 90_000, interval: 1000 }).toBe('sent');
    expect((await deliveries(`&state=sent`)).map((d) => d.id)).toContain(dead[0]!.id);
    expect(gotFor(eventId)).toHaveLength(1);

    await page.selectOption('select[name=state]', { label: 'sent' });
    await page.selectOption('select[name=rule]', { label: 'Doors' });
    await page.waitForSelector(failedRow);
    expect(Number((await cells(page, failedRow))[5])).toBeGreaterThanOrEqual(2);
    await shot(page, 'notifications-deliveries-recovered');
    expect(errors).toEqual([]);
    await page.close();
  }, 180_000);

  it("a receiver answering 410 disables the channel and its event's delivery is dead; enabled again, Retry sends it", async () => {
    receiver.status = 410;
    const eventId = await sendEvent('door.tamper', 3);
    await expect.poll(() => stateOf(eventId), { timeout: 30_000 }).toBe('dead');
    const dead = (await deliveries(`&event_id=${eventId}`))[0]!;
    receiver.status = 200;

    const { page, errors } = await watchedPage(desktop);
    await open(page, '/admin/notifications/channels');
    const channel = page.locator('tr[data-channel="Ops webhook north"]');
    await expect.poll(() => channel.locator('td').nth(3).textContent()).toBe('disabled');
    await shot(page, 'notifications-channel-gone');

    await tab(page, 'Delivery log');
    await page.selectOption('select[name=state]', { label: 'gave up' });
    const row = `tr[data-delivery="${dead.id}"]`;
    await page.waitForSelector(row);
    expect((await cells(page, row)).slice(2, 5)).toEqual(['Doors', 'Ops webhook north', 'gave up']);
    await shot(page, 'notifications-deliveries-gone');

    // The channel enabled again, Retry sends the dead delivery.
    await tab(page, 'Channels');
    await channel.locator('button:text("Enable")').click();
    await expect.poll(() => channel.locator('td').nth(3).textContent()).toBe('enabled');
    await tab(page, 'Delivery log');
    await page.selectOption('select[name=state]', { label: 'gave up' });
    await page.locator(`${row} button:text("Retry")`).click();
    await expect.poll(() => gotFor(eventId).length, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => stateOf(eventId), { timeout: 15_000 }).toBe('sent');
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('the live alert: with the switch on, a critical event shows a toast over the console', async () => {
    const { page, errors } = await watchedPage(desktop);
    await open(page, '/admin/notifications');
    const label = page.locator('.critical-switch label', { hasText: 'Show a notice on this screen' });
    expect(await label.locator('input').isChecked()).toBe(false);
    await Promise.all([
      page.waitForResponse((r) => r.url().includes('/api/v1/events/stream')),
      label.locator('input').check(),
    ]);
    // An error, then a critical event: only the critical one is a toast (the stream keeps their order).
    await sendEvent('door.held', 3);
    const eventId = await sendEvent('door.forced', 4);
    const toast = page.locator(`.toasts .toast[data-event="${eventId}"]`);
    await toast.waitFor({ timeout: 20_000 });
    expect(await page.locator('.toasts .toast').count()).toBe(1);
    expect(await toast.textContent()).toMatch(/^Critical: door\.forced on demo camera at /);
    expect(await toast.locator('a:text("Open")').getAttribute('href')).toBe(`/events/${eventId}`);
    await shot(page, 'notifications-toast');

    // The toast is the shell's: on another page of the console too; Dismiss takes it away.
    await tab(page, 'Delivery log');
    await page.waitForSelector('select[name=state]');
    const second = await sendEvent('door.forced', 4, false);
    const other = page.locator(`.toasts .toast[data-event="${second}"]`);
    await other.waitFor({ timeout: 20_000 });
    expect(await other.textContent()).toContain('door.forced on no camera');
    expect(await page.locator('.toasts .toast').count()).toBe(2);
    await shot(page, 'notifications-toasts-deliveries');
    await other.locator('button:text("Dismiss")').click();
    await toast.locator('button:text("Dismiss")').click();
    await expect.poll(() => page.locator('.toasts').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  }, 90_000);

  it('390x844: the rules, channels and delivery log and a toast lay out at phone width', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const { page, errors } = await watchedPage(phone);
    const screens = [
      ['rules', '', 'tr[data-rule="Doors"]', 'rule'],
      ['channels', '/channels', 'tr[data-channel="Ops webhook north"]', 'channel'],
      ['deliveries', '/deliveries', 'tr[data-delivery]', null],
    ] as const;
    for (const [name, path, row, form] of screens) {
      await open(page, `/admin/notifications${path}`);
      await page.waitForSelector(row);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      // Every cell of a row on the screen, its buttons too: no sideways scroll inside the list either.
      const right = await page
        .locator(row)
        .first()
        .evaluate((tr) => Math.max(...[...tr.querySelectorAll('td')].map((td) => td.getBoundingClientRect().right)));
      expect(right).toBeLessThanOrEqual(390);
      await shot(page, `notifications-${name}-390`);
      if (!form) continue;
      await page.click(`button:text("New ${form}")`);
      await page.waitForSelector(`form.${form}-form`);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await shot(page, `notifications-${form}-form-390`);
    }

    // The live alert at phone width, over the delivery log.
    await page.evaluate(`localStorage.setItem('argus.critical-alerts', '{"enabled":true,"sound":false}')`);
    await Promise.all([page.waitForResponse((r) => r.url().includes('/api/v1/events/stream')), page.reload()]);
    const eventId = await sendEvent('door.forced', 4);
    await page.locator(`.toasts .toast[data-event="${eventId}"]`).waitFor({ timeout: 20_000 });
    const box = (await page.locator('.toasts').boundingBox())!;
    expect([box.x >= 0, box.x + box.width <= 390]).toEqual([true, true]);
    await shot(page, 'notifications-toast-390');
    expect(errors).toEqual([]);
    await phone.close();
  }, 90_000);
});
