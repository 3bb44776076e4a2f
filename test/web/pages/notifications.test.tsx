// @vitest-environment happy-dom
/**
 * The notification rules page (issue 24) against a mocked plane: its states, a rule said in
 * words, create, edit on the revision read (a refused save said beside the form, what was typed
 * kept), enable/disable, delete with the name typed, and this browser's critical-alert switch.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { http, mockThePlane, never, ok, openConsole, page, refused, reply, screen } from './console.harness.js';
import { around, HOOK, MAIL, rule, RULE } from './notifications.fixtures.js';
import { camera } from './fixtures.js';
import { ALERT_SETTINGS_KEY } from '../../../web/src/lib/critical-alerts.js';

mockThePlane();

const type = (el: HTMLElement, value: string) => fireEvent.change(el, { target: { value } });

describe('notification rules (/admin/notifications)', () => {
  it('loading', async () => {
    openConsole(
      '/admin/notifications',
      'admin',
      reply('get', '/api/v1/notification-rules', never),
      ...around().slice(1),
    );
    expect(await (await page()).findByText('Loading notification rules…')).toBeTruthy();
  });

  it('error: a sentence, never the code', async () => {
    openConsole(
      '/admin/notifications',
      'admin',
      reply('get', '/api/v1/notification-rules', () => refused(503, 'db_unavailable')),
      ...around().slice(1),
    );
    const alert = await screen.findByText(/^The notification rules could not be read: /);
    expect(alert.textContent).not.toContain('db_unavailable');
  });

  it('empty: said in words; the tabs and New rule are there', async () => {
    openConsole('/admin/notifications', 'admin', ...around([]));
    expect(await screen.findByText(/^No rule yet/)).toBeTruthy();
    const tabs = screen.getByRole('navigation', { name: 'Notifications' });
    expect(
      within(tabs)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['Rules', 'Channels', 'Delivery log']);
    expect(screen.getByRole('button', { name: 'New rule' })).toBeTruthy();
  });

  it('data: what a rule matches, when, its cooldown and channels in words', async () => {
    openConsole('/admin/notifications', 'admin', ...around());
    const row = (await screen.findByText('Night doors')).closest('tr')!;
    expect([...row.querySelectorAll('td')].slice(0, 7).map((c) => c.textContent)).toEqual([
      'Night doors',
      `error or above; detectors motion.*; on ${camera().name}`,
      'Mon–Fri 18:00–07:00 (Europe/Paris)',
      '5 minutes',
      'ops-hook',
      '7',
      'enabled',
    ]);
  });

  it('create: the form sends the rule; the list is read again', async () => {
    const sent: unknown[] = [];
    let reads = 0;
    openConsole(
      '/admin/notifications',
      'admin',
      ...around().slice(1),
      http.get('/api/v1/notification-rules', () => {
        reads++;
        return ok({ rows: [], next: null });
      }),
      http.post('/api/v1/notification-rules', async ({ request }) => {
        sent.push(await request.json());
        return ok(rule({ name: 'Fire anywhere' }));
      }),
    );
    (await screen.findByRole('button', { name: 'New rule' })).click();
    const form = await screen.findByRole('form', { name: 'New rule' });
    type(within(form).getByLabelText('Name'), 'Fire anywhere');
    type(within(form).getByLabelText('Severity at least'), '4');
    type(within(form).getByLabelText('Detectors'), 'fire.*, smoke.*, fire.*');
    fireEvent.click(within(form).getByLabelText('night-shift'));
    fireEvent.click(within(form).getByRole('button', { name: 'Create rule' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      name: 'Fire anywhere',
      enabled: true,
      match: {
        detectors: ['fire.*', 'smoke.*'],
        severity_min: 4,
        camera_ids: [],
        tag_ids: [],
        categories: [],
        open_only: false,
      },
      schedule: null,
      cooldown_secs: 300,
      channel_ids: [MAIL],
    });
    await waitFor(() => expect(screen.queryByRole('form', { name: 'New rule' })).toBeNull());
    await waitFor(() => expect(reads).toBeGreaterThan(1));
  });

  it('edit: sent on the revision read; a save refused as stale is said beside the form, what was typed kept', async () => {
    const sent: unknown[] = [];
    openConsole(
      '/admin/notifications',
      'admin',
      ...around(),
      http.patch(`/api/v1/notification-rules/${RULE}`, async ({ request }) => {
        sent.push(await request.json());
        return refused(409, 'stale_revision');
      }),
    );
    const row = (await screen.findByText('Night doors')).closest('tr')!;
    within(row).getByRole('button', { name: 'Edit' }).click();
    const form = await screen.findByRole('form', { name: 'Edit rule Night doors' });
    expect((within(form).getByLabelText('Time zone') as HTMLInputElement).value).toBe('Europe/Paris');
    type(within(form).getByLabelText('Name'), 'Night doors and gates');
    fireEvent.click(within(form).getByRole('button', { name: 'Save rule' }));
    expect((await within(form).findByRole('alert')).textContent).toBe(
      'Someone else saved this in the meantime: reload to see their version.',
    );
    expect(sent[0]).toMatchObject({ revision: 3, name: 'Night doors and gates', channel_ids: [HOOK] });
    expect((within(form).getByLabelText('Name') as HTMLInputElement).value).toBe('Night doors and gates');
  });

  it('disable sends enabled false on the revision; delete asks for the name', async () => {
    const patched: unknown[] = [];
    let deleted = 0;
    openConsole(
      '/admin/notifications',
      'admin',
      ...around(),
      http.patch(`/api/v1/notification-rules/${RULE}`, async ({ request }) => {
        patched.push(await request.json());
        return ok(rule({ enabled: false, revision: 4 }));
      }),
      http.delete(`/api/v1/notification-rules/${RULE}`, () => {
        deleted++;
        return ok({ deleted: true });
      }),
    );
    const row = (await screen.findByText('Night doors')).closest('tr')!;
    within(row).getByRole('button', { name: 'Disable' }).click();
    await waitFor(() => expect(patched).toEqual([{ revision: 3, enabled: false }]));
    within(row).getByRole('button', { name: 'Delete' }).click();
    const dialog = await screen.findByRole('dialog');
    const confirm = within(dialog).getByRole('button', { name: 'Delete' }) as HTMLButtonElement;
    expect(confirm.disabled).toBe(true);
    type(within(dialog).getByLabelText(/to confirm/), 'Night doors');
    fireEvent.submit(dialog);
    await waitFor(() => expect(deleted).toBe(1));
  });

  it('the critical-alert switch is this browser’s setting, off at first', async () => {
    openConsole('/admin/notifications', 'admin', ...around(), reply('get', '/api/v1/events/stream', never));
    const on = (await screen.findByLabelText(/new critical event/)) as HTMLInputElement;
    expect(on.checked).toBe(false);
    expect((screen.getByLabelText('with a sound') as HTMLInputElement).disabled).toBe(true);
    fireEvent.click(on);
    await waitFor(() =>
      expect(JSON.parse(localStorage.getItem(ALERT_SETTINGS_KEY)!)).toEqual({ enabled: true, sound: false }),
    );
    expect((screen.getByLabelText('with a sound') as HTMLInputElement).disabled).toBe(false);
  });
});
