// @vitest-environment happy-dom
/**
 * Saved reports (/reports) against a mocked plane (issue 21 §4): the builder over the catalog, the
 * saved reports with what each measures; administrators may add one to a dashboard, operators not.
 */
import { describe, expect, it, vi } from 'vitest';
import { within } from '@testing-library/react';
import { answer, me, mockThePlane, never, openConsole, ORG, refused, reply, screen } from './console.harness.js';
import type { Body } from './console.harness.js';

mockThePlane();

type Report = Body<'/api/v1/analytics-reports', 'get'>['rows'][number];
const report: Report = {
  id: '0190c0de-0000-7000-8000-000000000021',
  org_id: ORG,
  name: 'Plates per gate',
  visibility: 'org',
  audience_user_ids: [],
  definition: { measure: 'count_events', group_by: 'camera', bucket: 'none', period: 'last_24h' },
  created_by: me('admin').user.id,
  revision: 1,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
};
const catalog = answer('get', '/api/v1/event-analytics/catalog', { fields: [], templates: [] });
const boards = answer('get', '/api/v1/analytics-dashboards', {
  rows: [
    {
      id: '0190c0de-0000-7000-8000-000000000001',
      org_id: ORG,
      name: 'Gates',
      description: '',
      visibility: 'org',
      audience_user_ids: [],
      default_period: 'today',
      timezone: 'UTC',
      live_enabled: false,
      created_by: null,
      revision: 1,
      created_at: '2026-11-01T00:00:00.000Z',
      updated_at: '2026-11-01T00:00:00.000Z',
    },
  ],
});

describe('saved reports (/reports)', () => {
  it('empty: the builder, no saved report', async () => {
    openConsole(
      '/reports',
      'user',
      catalog,
      boards,
      answer('get', '/api/v1/analytics-reports', { rows: [], next: null }),
    );
    expect(await screen.findByRole('heading', { name: 'Saved reports' })).toBeTruthy();
    expect(await screen.findByText('No saved report yet: build one above and save it.')).toBeTruthy();
    expect(screen.queryAllByRole('row')).toHaveLength(0);
  });

  it('data, operator: each report with what it measures and Run; no adding to a dashboard', async () => {
    openConsole(
      '/reports',
      'user',
      catalog,
      boards,
      answer('get', '/api/v1/analytics-reports', { rows: [report], next: null }),
    );
    const row = (await screen.findByText('Plates per gate')).closest('tr')!;
    expect(within(row).getByText('count_events by camera')).toBeTruthy();
    expect(within(row).getByRole('button', { name: 'Run' })).toBeTruthy();
    expect(within(row).queryByLabelText('add Plates per gate to a dashboard')).toBeNull();
  });

  it('data, administrator: the report may be added to a dashboard', async () => {
    openConsole(
      '/reports',
      'admin',
      catalog,
      boards,
      answer('get', '/api/v1/analytics-reports', { rows: [report], next: null }),
    );
    const add = await screen.findByLabelText('add Plates per gate to a dashboard');
    expect(within(add).getByRole('option', { name: 'Gates' })).toBeTruthy();
  });

  it('loading: the saved list says it is read', async () => {
    openConsole('/reports', 'user', catalog, boards, reply('get', '/api/v1/analytics-reports', never));
    expect(await screen.findByText('Loading saved reports…')).toBeTruthy();
  });

  it('error: a refused read of the saved list is a sentence with Try again, and the builder stays', async () => {
    let reads = 0;
    openConsole(
      '/reports',
      'user',
      catalog,
      boards,
      reply('get', '/api/v1/analytics-reports', () => {
        reads++;
        return refused(503, 'db_unavailable');
      }),
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/^The saved reports could not be read: /);
    expect(alert.textContent).not.toContain('db_unavailable');
    expect(screen.getByRole('heading', { name: 'Saved reports' })).toBeTruthy();
    const before = reads;
    within(alert).getByRole('button', { name: 'Try again' }).click();
    await vi.waitFor(() => expect(reads).toBeGreaterThan(before));
  });
});
