// @vitest-environment happy-dom
/**
 * The profile page (issue 22) against a mocked plane, for every role: the own zone and clock saved
 * through PUT /api/v1/me/preferences with the saved views kept, the own password typed twice, and
 * each refusal said beside its field with what was typed kept.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { http, me, mockThePlane, never, ok, openConsole, refused, reply, screen } from './console.harness.js';

mockThePlane();

const VIEW = { name: 'Gate', layout: '2x2' as const, camera_ids: ['0190c0de-0000-7000-8000-0000000000c1'] };
const saved = { timezone: 'America/New_York', clock: '12h' as const, views: [VIEW] };
const read = (body: unknown = saved) => reply('get', '/api/v1/me/preferences', () => ok(body));

/** The form named `name` once the page shows it. */
const form = async (name: string) => within(await screen.findByRole('form', { name }));

describe('the profile (/profile, every role)', () => {
  it.each(['user', 'admin', 'superadmin'] as const)('%s: who they are and their saved zone and clock', async (role) => {
    openConsole('/profile', role, read());
    expect(await screen.findByRole('heading', { name: 'Profile' })).toBeTruthy();
    expect(screen.getByText(`signed in as ${role}-1`, { exact: false })).toBeTruthy();
    const times = await form('Times');
    expect(times.getByLabelText<HTMLSelectElement>('Time zone').value).toBe('America/New_York');
    expect(times.getByLabelText<HTMLInputElement>('12-hour').checked).toBe(true);
    expect(within(screen.getByRole('navigation')).getByRole('link', { name: 'Profile' })).toBeTruthy();
  });

  it('loading: the zone is not offered until read; the password form is', async () => {
    openConsole('/profile', 'user', reply('get', '/api/v1/me/preferences', never));
    expect(await screen.findByRole('form', { name: 'Password' }, { timeout: 10_000 })).toBeTruthy();
    expect(screen.getByText('Loading…')).toBeTruthy();
    expect(screen.queryByLabelText('Time zone')).toBeNull();
  });

  it('error: a refused read is said in words, with Retry, and asked once', async () => {
    let asked = 0;
    openConsole(
      '/profile',
      'user',
      reply('get', '/api/v1/me/preferences', () => {
        asked++;
        return refused(503, 'db_unavailable');
      }),
    );
    const alert = await screen.findByText(/Your preferences could not be read/);
    expect(alert.textContent).not.toContain('db_unavailable');
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy();
    // The page stays shown while its own use of the read mounts: it was hidden and shown again,
    // each mount asking again, in a loop that blanked the page (1 run in 12 before, CI included).
    await new Promise((r) => setTimeout(r, 300));
    expect(screen.getByText(/Your preferences could not be read/)).toBeTruthy();
    expect(asked).toBeLessThanOrEqual(2);
  });

  it('saves a zone and the 12-hour clock, sending the saved views back as they were', async () => {
    const puts: unknown[] = [];
    openConsole(
      '/profile',
      'user',
      read({ timezone: null, clock: '24h', views: [VIEW] }),
      http.put('/api/v1/me/preferences', async ({ request }) => {
        const body = await request.json();
        puts.push(body);
        return ok(body);
      }),
    );
    const times = await form('Times');
    expect(times.getByLabelText<HTMLSelectElement>('Time zone').value).toBe('');
    fireEvent.change(times.getByLabelText('Time zone'), { target: { value: 'Asia/Tokyo' } });
    fireEvent.click(times.getByLabelText('12-hour'));
    // The preview follows the form before it is saved: Tokyo's zone, a 12-hour time.
    expect(screen.getByTestId('time-preview').textContent).toMatch(/\d{1,2}:\d\d:\d\d\s[AP]M GMT\+9$/);
    fireEvent.click(times.getByRole('button', { name: 'Save times' }));
    expect(await times.findByText('Saved.')).toBeTruthy();
    expect(puts).toEqual([{ timezone: 'Asia/Tokyo', clock: '12h', views: [VIEW] }]);
  });

  it('a refused zone is said beside the zone field, the choice kept', async () => {
    openConsole(
      '/profile',
      'admin',
      read({ timezone: null, clock: '24h', views: [] }),
      reply('put', '/api/v1/me/preferences', () => refused(400, 'bad_timezone')),
    );
    const times = await form('Times');
    fireEvent.change(times.getByLabelText('Time zone'), { target: { value: 'Europe/Paris' } });
    fireEvent.click(times.getByLabelText('12-hour'));
    fireEvent.click(times.getByRole('button', { name: 'Save times' }));
    const alert = await times.findByRole('alert');
    expect(alert.textContent).toBe("The time zone is not known: choose one from the list, or the browser's own.");
    const zone = times.getByLabelText<HTMLSelectElement>('Time zone');
    expect(zone.getAttribute('aria-describedby')).toContain(alert.id);
    expect(zone.getAttribute('aria-invalid')).toBe('true');
    expect(zone.value).toBe('Europe/Paris');
    expect(times.getByLabelText<HTMLInputElement>('12-hour').checked).toBe(true);
  });
});

describe('the own password', () => {
  const self = me('user').user.id;

  it('two different passwords are refused before anything is sent', async () => {
    const sent: unknown[] = [];
    openConsole(
      '/profile',
      'user',
      read(),
      http.patch('/api/v1/users/:id', async ({ request }) => {
        sent.push(await request.json());
        return ok({});
      }),
    );
    const pw = await form('Password');
    fireEvent.change(pw.getByLabelText('New password'), { target: { value: 'a-long-password-1' } });
    fireEvent.change(pw.getByLabelText('Confirm the new password'), { target: { value: 'a-long-password-2' } });
    fireEvent.click(pw.getByRole('button', { name: 'Change password' }));
    const alert = await pw.findByRole('alert');
    expect(alert.textContent).toBe('The two passwords differ: type the same one twice.');
    expect(pw.getByLabelText('Confirm the new password').getAttribute('aria-describedby')).toContain(alert.id);
    expect(pw.getByLabelText<HTMLInputElement>('New password').value).toBe('a-long-password-1');
    await new Promise((r) => setTimeout(r, 50));
    expect(sent).toEqual([]);
  });

  it("the plane's refusal is said beside the new password, what was typed kept", async () => {
    openConsole(
      '/profile',
      'admin',
      read(),
      reply('patch', '/api/v1/users/{id}', () => refused(400, 'bad_password', { field: 'password' })),
    );
    const pw = await form('Password');
    fireEvent.change(pw.getByLabelText('New password'), { target: { value: 'short' } });
    fireEvent.change(pw.getByLabelText('Confirm the new password'), { target: { value: 'short' } });
    fireEvent.click(pw.getByRole('button', { name: 'Change password' }));
    const alert = await pw.findByRole('alert');
    expect(alert.textContent).toMatch(/^The password is not accepted: use 8 to 1,024 characters\./);
    expect(alert.textContent).not.toContain('bad_password');
    expect(pw.getByLabelText('New password').getAttribute('aria-describedby')).toContain(alert.id);
    expect(pw.getByLabelText<HTMLInputElement>('New password').value).toBe('short');
    expect(pw.getByLabelText<HTMLInputElement>('Confirm the new password').value).toBe('short');
  });

  it('a matching pair is sent as the own record’s password; the fields empty once changed', async () => {
    const sent: Array<{ id: string; body: unknown }> = [];
    openConsole(
      '/profile',
      'user',
      read(),
      http.patch('/api/v1/users/:id', async ({ request, params }) => {
        sent.push({ id: String(params.id), body: await request.json() });
        return ok(me('user').user);
      }),
    );
    const pw = await form('Password');
    fireEvent.change(pw.getByLabelText('New password'), { target: { value: 'a-long-password-1' } });
    fireEvent.change(pw.getByLabelText('Confirm the new password'), { target: { value: 'a-long-password-1' } });
    fireEvent.click(pw.getByRole('button', { name: 'Change password' }));
    expect(await pw.findByText('Password changed.')).toBeTruthy();
    expect(sent).toEqual([{ id: self, body: { password: 'a-long-password-1' } }]);
    await waitFor(() => expect(pw.getByLabelText<HTMLInputElement>('New password').value).toBe(''));
  });
});
