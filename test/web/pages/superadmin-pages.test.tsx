// @vitest-environment happy-dom
/**
 * The plane's settings (superadmin) and the dashboards' list against a mocked plane (issue 21 §4),
 * in their loading, empty, error and data states. The settings reply is typed by the plane's own
 * sections (src/plane/settings/settings.reply.ts): its OpenAPI schema leaves them open.
 */
import { describe, expect, it } from 'vitest';
import { within } from '@testing-library/react';
import { HttpResponse } from 'msw';
import type {
  evidenceStorageSection,
  loggingSection,
  networkSection,
} from '../../../src/plane/settings/settings.reply.js';
import { answer, me, mockThePlane, never, openConsole, page, refused, reply, screen } from './console.harness.js';

mockThePlane();

interface Settings {
  dvr_export_max_secs: number;
  network: ReturnType<typeof networkSection>;
  logging: ReturnType<typeof loggingSection>;
  evidence_storage: Awaited<ReturnType<typeof evidenceStorageSection>>;
}
const limits = {
  max_bytes: null,
  volume_retention: 'disabled' as const,
  low_watermark_percent: 70,
  high_watermark_percent: 85,
  critical_watermark_percent: 95,
};
function settings(): Settings {
  return {
    dvr_export_max_secs: 3600,
    network: {
      effective: {
        public_url: 'https://plane.example',
        listen: '0.0.0.0:8080',
        tls: {
          mode: 'self_signed',
          cert: '',
          key: '',
          hosts: [],
          store_dir: '',
          acme_contact: '',
          acme_listen: '',
        },
      },
      saved: { public_url: 'https://plane.example', listen: '0.0.0.0:8080', tls: { mode: 'self_signed' } },
      pending_restart: false,
      certificate: {
        mode: 'self_signed',
        configured_hosts: ['plane.example'],
        automatic_renewal: true,
        renewal_window_days: 30,
        temporary_self_signed: false,
        status_hint: 'serving a self-signed certificate',
        certificate: {
          fingerprint: 'AB:CD',
          subject: 'CN=plane.example',
          issuer: 'CN=plane.example',
          serial: '01',
          hosts: ['plane.example'],
          not_before: '2026-11-01T00:00:00.000Z',
          not_after: '2027-01-30T00:00:00.000Z',
          days_left: 65,
          renew_after: '2026-12-31T00:00:00.000Z',
        },
      },
    },
    logging: {
      minimum_level: 'info',
      effective_minimum_level: 'info',
      source: 'settings file',
      environment_override: false,
      applies_live: true,
    },
    evidence_storage: {
      effective: { backend: 'local', dir: '/var/lib/argus/evidence', ...limits },
      saved: { backend: 'local', dir: '/var/lib/argus/evidence', ...limits },
      pending_restart: false,
      rotation_blocked: false,
      backend_divergence: null,
      stats: {
        state: 'ok',
        logical_bytes: 5_000_000,
        physical_bytes: 5_000_000,
        event_count: 120,
        attachment_count: 42,
        capacity_bytes: 100_000_000,
        available_bytes: 95_000_000,
        used_percent: 5,
        operations: {} as Settings['evidence_storage']['stats']['operations'],
        failed_jobs: 0,
        pressure_dropped_attachments: 0,
      },
    },
  };
}
const answerSettings = (body: Settings) =>
  reply('get', '/api/v1/settings/plane', () => HttpResponse.json(body, { headers: { etag: '"r1"' } }));

describe('plane settings (/admin/settings)', () => {
  it('loading', async () => {
    openConsole('/admin/settings', 'superadmin', reply('get', '/api/v1/settings/plane', never));
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('error: the refusal in words', async () => {
    openConsole(
      '/admin/settings',
      'superadmin',
      reply('get', '/api/v1/settings/plane', () => refused(503, 'db_unavailable')),
    );
    expect(await screen.findByText('The plane cannot reach its database. Try again shortly.')).toBeTruthy();
  });

  it('data: the general form, the certificate, the storage figures', async () => {
    openConsole('/admin/settings', 'superadmin', answerSettings(settings()));
    expect(await screen.findByRole('heading', { name: 'Plane settings' })).toBeTruthy();
    expect((screen.getByLabelText('Longest export (s)') as HTMLInputElement).value).toBe('3600');
    expect((screen.getByLabelText('Log level') as HTMLSelectElement).disabled).toBe(false);
    expect(screen.getByText(/CN=plane\.example, 65 days left/)).toBeTruthy();
    expect(screen.getByText(/5% used/)).toBeTruthy();
    expect(screen.getByText(/42 attachments/)).toBeTruthy();
    expect(screen.queryByText('Saved changes wait for a restart of the plane.')).toBeNull();
  });

  it('data, pending: a saved change waiting for a restart, the level owned by the environment', async () => {
    const s = settings();
    s.network.pending_restart = true;
    s.logging = { ...s.logging, environment_override: true, source: 'environment RUST_LOG' };
    openConsole('/admin/settings', 'superadmin', answerSettings(s));
    expect(await screen.findByText('Saved changes wait for a restart of the plane.')).toBeTruthy();
    expect((screen.getByLabelText('Log level') as HTMLSelectElement).disabled).toBe(true);
    expect(screen.getByText('environment RUST_LOG owns the level')).toBeTruthy();
  });
});

describe('dashboards (/dashboards)', () => {
  const board = (id: string, name: string, visibility: 'org' | 'users' | 'admins') => ({
    id: `0190c0de-0000-7000-8000-00000000${id}`,
    org_id: me('user').user.org_id,
    name,
    description: `${name} figures`,
    visibility,
    default_period: 'today',
    timezone: 'UTC',
    live_enabled: false,
    created_by: me('admin').user.id,
    audience_user_ids: [],
    revision: 1,
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T00:00:00.000Z',
  });

  it('loading', async () => {
    openConsole('/dashboards', 'user', reply('get', '/api/v1/analytics-dashboards', never));
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('error', async () => {
    openConsole(
      '/dashboards',
      'user',
      reply('get', '/api/v1/analytics-dashboards', () => refused(503, 'db_busy')),
    );
    expect(await screen.findByText('The dashboards could not be read.')).toBeTruthy();
  });

  it('empty: an operator reads that there is none, and no form to create one', async () => {
    openConsole('/dashboards', 'user', answer('get', '/api/v1/analytics-dashboards', { rows: [] }));
    expect(await screen.findByText('No dashboard yet.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /create/i })).toBeNull();
  });

  it('data: grouped by audience, each a link to its page', async () => {
    openConsole(
      '/dashboards',
      'user',
      answer('get', '/api/v1/analytics-dashboards', {
        rows: [board('0001', 'Gates', 'org'), board('0002', 'Night shift', 'users')],
      }),
    );
    const everyone = (await screen.findByRole('heading', { name: 'Everyone in the organisation' })).parentElement!;
    expect(within(everyone).getByRole('link', { name: 'Gates' }).getAttribute('href')).toBe(
      '/dashboards/0190c0de-0000-7000-8000-000000000001',
    );
    expect(screen.getByRole('heading', { name: 'Chosen people' })).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Administrators' })).toBeNull();
  });
});
