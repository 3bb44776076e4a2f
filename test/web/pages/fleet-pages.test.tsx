// @vitest-environment happy-dom
/**
 * A node's page (superadmin) and the event templates (administrators) against a mocked plane
 * (issue 21 §4): loading, error, empty and data as the administrator reads them.
 */
import { describe, expect, it, vi } from 'vitest';
import { within } from '@testing-library/react';
import { answer, mockThePlane, never, openConsole, ORG, refused, reply, screen } from './console.harness.js';
import { NODE } from './fixtures.js';

mockThePlane();

describe("a node's page (/admin/nodes/:id)", () => {
  const path = `/admin/nodes/${NODE}`;
  const nodes = answer('get', '/api/v1/nodes', {
    rows: [
      {
        id: NODE,
        name: 'node-1',
        url: 'http://10.0.0.5:8090',
        enabled: true,
        state: 'online',
        version: '0.1.0',
        last_seen_at: '2026-11-25T10:00:00.000Z',
        api_token_configured: true,
        auth_backend_secret_configured: true,
      },
    ],
    next: null,
  });
  const rest = [
    answer('get', '/api/v1/nodes/{id}/logging', { level: 'warn' }),
    answer('get', '/api/v1/nodes/{id}/config/history', {
      rows: [{ epoch: 3, hash: 'a1b2c3', ts_ms: Date.parse('2026-11-25T09:00:00Z'), actor: 'ada', via: 'globals' }],
    }),
    answer('get', '/api/v1/nodes/{id}/logs', {
      capacity: 1000,
      head_seq: 2,
      entries: [
        { seq: 2, ts_ms: Date.parse('2026-11-25T10:00:00Z'), level: 'warn', target: 'rtsp', message: 'camera slow' },
      ],
    }),
  ];

  it('loading: the licence is awaited', async () => {
    openConsole(
      path,
      'superadmin',
      nodes,
      ...rest,
      reply('get', '/api/v1/nodes/{id}/license', never),
      reply('get', '/api/v1/nodes/{id}/sessions', never),
    );
    expect(await screen.findByRole('heading', { name: /node-1/ })).toBeTruthy();
    expect(screen.getByTestId('licence').textContent).toBe('Licence: …');
    expect(screen.getByRole('heading', { name: 'Viewers now (0)' })).toBeTruthy();
  });

  it('error: a node that does not answer its licence says so', async () => {
    openConsole(
      path,
      'superadmin',
      nodes,
      ...rest,
      reply('get', '/api/v1/nodes/{id}/license', () => refused(502, 'node_unreachable')),
      answer('get', '/api/v1/nodes/{id}/sessions', { rows: [] }),
    );
    expect(await screen.findByText('Licence: not answered')).toBeTruthy();
  });

  it('data: licence, level, viewers, log, configuration versions; empty: no viewer', async () => {
    openConsole(
      path,
      'superadmin',
      nodes,
      ...rest,
      answer('get', '/api/v1/nodes/{id}/license', {
        state: 'valid',
        licensee: 'Harbour Ltd',
        expires: '2027-06-30',
        build_date: null,
        updates_until: null,
      }),
      answer('get', '/api/v1/nodes/{id}/sessions', { rows: [] }),
    );
    expect(await screen.findByText('Licence: valid, Harbour Ltd, until 2027-06-30')).toBeTruthy();
    expect(screen.getByRole('heading', { name: /http:\/\/10\.0\.0\.5:8090/ })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Viewers now (0)' })).toBeTruthy();
    expect(await within(screen.getByTestId('node-log')).findByText(/camera slow/)).toBeTruthy();
    await expect.poll(() => (screen.getByLabelText('Node log level') as HTMLSelectElement).value).toBe('warn');
    expect(await screen.findByText(/a1b2c3/)).toBeTruthy();
  });
});

describe('event templates (/admin/templates)', () => {
  const template = (name: string, system: boolean, enabled = true) => ({
    id: `0190c0de-0000-7000-8000-${name.padStart(12, '0').slice(-12)}`,
    org_id: system ? null : ORG,
    name,
    detector_match: system ? 'system.*' : 'lpr.*',
    doc: { detector_match: system ? 'system.*' : 'lpr.*', title: { en: name } },
    enabled,
    system,
    unknown_fields: [],
    updated_at: '2026-11-01T00:00:00.000Z',
    version: 1,
  });

  it('empty: only the way to a new template', async () => {
    openConsole('/admin/templates', 'admin', answer('get', '/api/v1/templates', { rows: [], next: null }));
    expect(await screen.findByRole('heading', { name: 'Event templates' })).toBeTruthy();
    expect(screen.getByRole('button', { name: '+ New template' })).toBeTruthy();
    await vi.waitFor(() => expect(screen.queryByText('Loading templates…')).toBeNull());
    expect(screen.getByRole('list').querySelectorAll('li')).toHaveLength(1);
  });

  it('data: the list with the system and disabled ones marked', async () => {
    openConsole(
      '/admin/templates',
      'admin',
      answer('get', '/api/v1/templates', {
        rows: [template('camera-offline', true), template('plates', false), template('old', false, false)],
        next: null,
      }),
    );
    const system = (await screen.findByRole('button', { name: 'camera-offline' })).closest('li')!;
    expect(within(system).getByText('system')).toBeTruthy();
    const old = screen.getByRole('button', { name: 'old' }).closest('li')!;
    expect(within(old).getByText('off')).toBeTruthy();
    expect(within(screen.getByRole('button', { name: 'plates' }).closest('li')!).queryByText('off')).toBeNull();
  });

  it('loading: the list says it is read', async () => {
    openConsole('/admin/templates', 'admin', reply('get', '/api/v1/templates', never));
    expect(await screen.findByText('Loading templates…')).toBeTruthy();
  });

  it('error: a refused list read is a sentence, never the code, and the form stays', async () => {
    openConsole(
      '/admin/templates',
      'admin',
      reply('get', '/api/v1/templates', () => refused(503, 'db_unavailable')),
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/^The templates could not be read: /);
    expect(alert.textContent).not.toContain('db_unavailable');
  });
});
