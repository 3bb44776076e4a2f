// @vitest-environment happy-dom
/**
 * The settings page's notifications section (issue 24): the SMTP server as saved, the password
 * write-only (never shown, sent only when typed), the server removed with smtp null, a change
 * waiting for a restart said.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import type { Settings } from '../../../web/src/api/settings.js';
import { http, mockThePlane, openConsole, screen } from './console.harness.js';

mockThePlane();

const SMTP = {
  host: 'smtp.example.org',
  port: 587,
  tls: 'starttls' as const,
  user: 'argus',
  from: 'Argus <alerts@example.org>',
  tls_ca: null,
  password_configured: true,
};

function settings(pending: boolean): Settings {
  return {
    dvr_export_max_secs: 3600,
    logging: {
      minimum_level: 'info',
      effective_minimum_level: 'info',
      environment_override: false,
      applies_live: true,
      source: 'settings file',
    },
    network: {
      pending_restart: false,
      effective: { public_url: 'https://plane.example' },
      certificate: { mode: 'off', status_hint: 'plain HTTP', certificate: null },
    },
    evidence_storage: {
      pending_restart: false,
      rotation_blocked: false,
      effective: { backend: 'local', dir: '/var/lib/argus/evidence' },
      stats: {
        used_percent: 5,
        capacity_bytes: 100_000_000,
        logical_bytes: 5_000_000,
        attachment_count: 42,
        failed_jobs: 0,
        pressure_dropped_attachments: 0,
        operations: { ops_per_second: 0, errors: 0 },
      },
    },
    notifications: {
      effective: { channel_rate: 10, smtp: pending ? null : SMTP },
      saved: { channel_rate: 10, smtp: SMTP },
      pending_restart: pending,
    },
  };
}

const type = (el: HTMLElement, value: string) => fireEvent.change(el, { target: { value } });

describe('settings: notifications', () => {
  it('the saved server, its password never shown; a save sends it only when typed; Remove sends smtp null', async () => {
    const sent: unknown[] = [];
    openConsole(
      '/admin/settings',
      'superadmin',
      http.get('/api/v1/settings/plane', () => HttpResponse.json(settings(true), { headers: { etag: '"r1"' } })),
      http.patch('/api/v1/settings/plane', async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json({}, { headers: { etag: '"r2"' } });
      }),
    );
    const form = await screen.findByRole('form', { name: 'Notifications' });
    expect(screen.getByText('Saved changes wait for a restart of the plane.')).toBeTruthy();
    expect((within(form).getByLabelText('SMTP server') as HTMLInputElement).value).toBe('smtp.example.org');
    expect((within(form).getByLabelText('SMTP password') as HTMLInputElement).value).toBe('');
    expect(within(form).getByText('configured: empty keeps it')).toBeTruthy();
    type(within(form).getByLabelText('Deliveries per second per channel'), '25');
    fireEvent.click(within(form).getByRole('button', { name: 'Save notifications' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({
      notifications: {
        channel_rate: 25,
        smtp: {
          host: 'smtp.example.org',
          tls: 'starttls',
          port: 587,
          user: 'argus',
          from: 'Argus <alerts@example.org>',
        },
      },
    });
    type(within(form).getByLabelText('SMTP password'), 'n3w-pw');
    fireEvent.click(within(form).getByRole('button', { name: 'Save notifications' }));
    await waitFor(() => expect(sent).toHaveLength(2));
    expect(sent[1]).toMatchObject({ notifications: { smtp: { password: 'n3w-pw' } } });
    fireEvent.click(within(form).getByRole('button', { name: 'Remove the SMTP server' }));
    await waitFor(() => expect(sent[2]).toEqual({ notifications: { smtp: null } }));
  });
});
