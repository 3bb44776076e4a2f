// @vitest-environment happy-dom
/**
 * The notification channels page and the delivery log (issue 24) against a mocked plane: a
 * channel's target in words, a test message's outcome said (the receiver's refusal included),
 * the forms per kind with write-only secrets, the log's filters, Load more and Retry.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { http, mockThePlane, ok, openConsole, refused, screen } from './console.harness.js';
import { around, channel, delivery, HOOK, mailChannel, MAIL, RULE, uuid } from './notifications.fixtures.js';

mockThePlane();

const type = (el: HTMLElement, value: string) => fireEvent.change(el, { target: { value } });

describe('notification channels (/admin/notifications/channels)', () => {
  it('each channel with its kind and where it sends', async () => {
    openConsole('/admin/notifications/channels', 'admin', ...around());
    const row = (await screen.findByText('night-shift')).closest('tr')!;
    expect([...row.querySelectorAll('td')].slice(0, 4).map((c) => c.textContent)).toEqual([
      'night-shift',
      'E-mail',
      'ops@example.org, lead@example.org',
      'enabled',
    ]);
    expect(screen.getByText('https://hooks.example.org/argus')).toBeTruthy();
  });

  it('Test: the delivery the plane answers is said in words, a refusal with the receiver’s reason', async () => {
    openConsole(
      '/admin/notifications/channels',
      'admin',
      ...around(),
      http.post(`/api/v1/notification-channels/${HOOK}/test`, () => ok(delivery({ rule_id: null }))),
      http.post(`/api/v1/notification-channels/${MAIL}/test`, () =>
        ok(
          delivery({
            channel_id: MAIL,
            rule_id: null,
            state: 'dead',
            sent_at: null,
            last_error: 'the SMTP server smtp.example.org:587 refused the login of argus: 535 bad credentials',
          }),
        ),
      ),
    );
    const hook = (await screen.findByText('ops-hook')).closest('tr')!;
    within(hook).getByRole('button', { name: 'Test' }).click();
    await waitFor(() => expect(within(hook).getByRole('status').textContent).toBe('The test message was delivered.'));
    const mail = screen.getByText('night-shift').closest('tr')!;
    within(mail).getByRole('button', { name: 'Test' }).click();
    await waitFor(() =>
      expect(within(mail).getByRole('status').textContent).toBe(
        'The test message was not delivered: the SMTP server smtp.example.org:587 refused the login of argus: 535 bad credentials.',
      ),
    );
  });

  it('create an e-mail channel: its recipients as a list', async () => {
    const sent: unknown[] = [];
    openConsole(
      '/admin/notifications/channels',
      'admin',
      ...around(),
      http.post('/api/v1/notification-channels', async ({ request }) => {
        sent.push(await request.json());
        return ok(mailChannel());
      }),
    );
    (await screen.findByRole('button', { name: 'New channel' })).click();
    const form = await screen.findByRole('form', { name: 'New channel' });
    type(within(form).getByLabelText('Name'), 'night-shift');
    type(within(form).getByLabelText('Kind'), 'email');
    type(within(form).getByLabelText('Recipients'), 'ops@example.org,\nlead@example.org');
    fireEvent.click(within(form).getByRole('button', { name: 'Create channel' }));
    await waitFor(() =>
      expect(sent).toEqual([{ name: 'night-shift', kind: 'email', to: ['ops@example.org', 'lead@example.org'] }]),
    );
  });

  it('edit an MQTT channel: the password left empty is not sent (kept); a refusal is said beside the form', async () => {
    const MQ = uuid(0xc3);
    const mq = channel({
      id: MQ,
      name: 'broker',
      kind: 'mqtt',
      url: 'mqtt://10.0.0.5:1883',
      secret_configured: undefined,
      headers: undefined,
      topic: 'argus/{camera}',
      username: 'argus',
      password_configured: true,
      qos: 1,
    });
    const sent: unknown[] = [];
    openConsole(
      '/admin/notifications/channels',
      'admin',
      ...around(undefined, [mq]),
      http.patch(`/api/v1/notification-channels/${MQ}`, async ({ request }) => {
        sent.push(await request.json());
        return refused(400, 'bad_channel_settings');
      }),
    );
    const row = (await screen.findByText('broker')).closest('tr')!;
    expect(within(row).getByText('mqtt://10.0.0.5:1883 argus/{camera}')).toBeTruthy();
    within(row).getByRole('button', { name: 'Edit' }).click();
    const form = await screen.findByRole('form', { name: 'Edit channel broker' });
    expect(within(form).getByText('configured: empty keeps it')).toBeTruthy();
    type(within(form).getByLabelText('Topic'), 'argus/{camera}/#');
    fireEvent.click(within(form).getByRole('button', { name: 'Save channel' }));
    expect((await within(form).findByRole('alert')).textContent).toBe(
      'The channel settings are not valid (webhook secret and headers, 1 to 32 e-mail addresses, MQTT topic and QoS 1).',
    );
    expect(sent).toEqual([
      { name: 'broker', url: 'mqtt://10.0.0.5:1883', topic: 'argus/{camera}/#', username: 'argus', revision: 3 },
    ]);
  });
});

describe('the delivery log (/admin/notifications/deliveries)', () => {
  it('rows in words, the filters asked of the plane, Retry for a dead one, Load more', async () => {
    const asked: string[] = [];
    let retried = 0;
    const dead = delivery({
      id: uuid(0xe2),
      state: 'dead',
      attempts: 19,
      sent_at: null,
      last_error: 'connect ECONNREFUSED',
    });
    openConsole(
      '/admin/notifications/deliveries',
      'admin',
      ...around(),
      http.get('/api/v1/notification-deliveries', ({ request }) => {
        const q = new URL(request.url).searchParams;
        asked.push(q.toString());
        if (q.get('after')) return ok({ rows: [delivery({ id: uuid(0xe9), channel_id: MAIL })], next: null });
        return ok({ rows: [dead, delivery()], next: uuid(0xe1) });
      }),
      http.post(`/api/v1/notification-deliveries/${uuid(0xe2)}/retry`, () => {
        retried++;
        return ok({ ...dead, state: 'pending' });
      }),
    );
    const row = (await screen.findByText('connect ECONNREFUSED')).closest('tr')!;
    expect([...row.querySelectorAll('td')].slice(2, 6).map((c) => c.textContent)).toEqual([
      'Night doors',
      'ops-hook',
      'gave up',
      '19',
    ]);
    // Each row links to its event.
    expect(within(row).getByRole('link', { name: 'Open' }).getAttribute('href')).toBe(`/events/${dead.event_id}`);
    expect(screen.getAllByRole('button', { name: 'Retry' })).toHaveLength(1);
    within(row).getByRole('button', { name: 'Retry' }).click();
    await waitFor(() => expect(retried).toBe(1));
    screen.getByRole('button', { name: 'Load more' }).click();
    expect(await screen.findByText('night-shift')).toBeTruthy();
    type(screen.getByLabelText('State'), 'dead');
    type(screen.getByLabelText('Rule'), RULE);
    // Newest first on every page (the API's order=newest; its default is oldest first).
    await waitFor(() => expect(asked.at(-1)).toBe(`state=dead&rule_id=${RULE}&order=newest`));
    expect(asked[0]).toBe('order=newest');
    expect(asked).toContain(`order=newest&after=${uuid(0xe1)}`);
  });

  it('the rows wait for the names: no live channel is called deleted while its list loads', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const rows = () => document.querySelectorAll('tr[data-delivery]');
    let answered = false;
    openConsole(
      '/admin/notifications/deliveries',
      'admin',
      http.get('/api/v1/notification-channels', async () => {
        await held;
        return ok({ rows: [channel()], next: null });
      }),
      ...around(),
      http.get('/api/v1/notification-deliveries', () => {
        answered = true;
        return ok({ rows: [delivery()], next: null });
      }),
    );
    await waitFor(() => expect(answered).toBe(true));
    await new Promise((r) => setTimeout(r, 50)); // the log's answer rendered, the channels' still out
    expect(rows()).toHaveLength(0);
    expect(screen.getByText(/Loading delivery log/)).toBeTruthy();
    release();
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0]!.querySelectorAll('td')[3]!.textContent).toBe('ops-hook');
  });

  it('a channel list the plane refused: the rows say the name is not known, not deleted', async () => {
    openConsole(
      '/admin/notifications/deliveries',
      'admin',
      http.get('/api/v1/notification-channels', () => refused(503, 'db_unavailable')),
      ...around(),
      http.get('/api/v1/notification-deliveries', () => ok({ rows: [delivery()], next: null })),
    );
    await waitFor(() => expect(document.querySelectorAll('tr[data-delivery]')).toHaveLength(1));
    const cells = document.querySelectorAll('tr[data-delivery] td');
    expect([cells[2]!.textContent, cells[3]!.textContent]).toEqual([
      'Night doors',
      'not known (its list did not load)',
    ]);
  });
});
