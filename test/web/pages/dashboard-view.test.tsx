// @vitest-environment happy-dom
/**
 * A dashboard's page (/dashboards/:id) against a mocked plane (issue 21 §4): loading, not found,
 * a dashboard without widgets, and one whose kpi widget the batch answers or refuses.
 */
import { describe, expect, it } from 'vitest';
import { answer, me, mockThePlane, never, openConsole, page, refused, reply, screen } from './console.harness.js';
import type { Body } from './console.harness.js';

mockThePlane();

const ID = '0190c0de-0000-7000-8000-000000000001';
const WIDGET = '0190c0de-0000-7000-8000-000000000011';
type Dashboard = Body<'/api/v1/analytics-dashboards/{id}', 'get'>;
type Widget = Dashboard['widgets'][number];

const kpi: Widget = {
  id: WIDGET,
  dashboard_id: ID,
  title: 'Plates today',
  visualization: 'kpi',
  report_id: null,
  inline_definition: { measure: 'count', group_by: 'none', bucket: 'none' },
  options: {},
  position: 0,
  layout: { w: 1 },
  revision: 1,
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-01T00:00:00.000Z',
};
function dashboard(widgets: Widget[]): Dashboard {
  return {
    id: ID,
    org_id: me('user').user.org_id,
    name: 'Gates',
    description: 'What the gates saw',
    visibility: 'org',
    audience_user_ids: [],
    audience_users: [],
    default_period: 'today',
    timezone: 'UTC',
    live_enabled: false,
    created_by: null,
    revision: 1,
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T00:00:00.000Z',
    widgets,
  };
}
const result = {
  as_of: '2026-11-25T10:00:00.000Z',
  bucket: 'none',
  from: '2026-11-25T00:00:00.000Z',
  to: '2026-11-26T00:00:00.000Z',
  group_by: 'none',
  group_field: null,
  measure: 'count',
  measure_field: null,
  points: [{ bucket: null, key: null, label: null, sample_count: 1, value: 1234 }],
  query_fingerprint: 'f1',
  timezone: 'UTC',
  truncated: false,
  warnings: [],
};

describe('a dashboard (/dashboards/:id)', () => {
  it('loading', async () => {
    openConsole(`/dashboards/${ID}`, 'user', reply('get', '/api/v1/analytics-dashboards/{id}', never));
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('error: not found or not shared with the reader', async () => {
    openConsole(
      `/dashboards/${ID}`,
      'user',
      reply('get', '/api/v1/analytics-dashboards/{id}', () => refused(404, 'not_found')),
    );
    expect(await screen.findByText('No such dashboard, or not yours to see.')).toBeTruthy();
  });

  it('empty: a dashboard without widgets shows its name and description', async () => {
    openConsole(`/dashboards/${ID}`, 'user', answer('get', '/api/v1/analytics-dashboards/{id}', dashboard([])));
    expect(await screen.findByRole('heading', { name: 'Gates' })).toBeTruthy();
    expect(document.querySelector('[data-widget]')).toBeNull();
  });

  it('data: the kpi widget shows the total, a link to the feed of what it counts', async () => {
    openConsole(
      `/dashboards/${ID}`,
      'user',
      answer('get', '/api/v1/analytics-dashboards/{id}', dashboard([kpi])),
      answer('post', '/api/v1/event-analytics/query-batch', {
        as_of: result.as_of,
        stream_cursor: 'g:7',
        results: [{ key: WIDGET, result }],
      }),
    );
    expect(await screen.findByText('Plates today')).toBeTruthy();
    const total = await screen.findByRole('link', { name: (1234).toLocaleString() });
    expect(total.getAttribute('href')).toMatch(/^\/feed\?/);
  });

  it('error: a widget the batch refuses says why in words', async () => {
    openConsole(
      `/dashboards/${ID}`,
      'user',
      answer('get', '/api/v1/analytics-dashboards/{id}', dashboard([kpi])),
      answer('post', '/api/v1/event-analytics/query-batch', {
        as_of: result.as_of,
        stream_cursor: 'g:7',
        results: [{ key: WIDGET, error: 'analytics_bad_timezone' }],
      }),
    );
    expect(await screen.findByText('Plates today')).toBeTruthy();
    expect(await screen.findByText('The time zone is not a known IANA zone (for example Europe/Paris).')).toBeTruthy();
  });
});
