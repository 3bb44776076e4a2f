// @vitest-environment happy-dom
/**
 * The administrators' pages against a mocked plane (issue 21 §4): module tokens, people, usage,
 * organisations, templates and audit; each in the states it has (loading, empty, error, data),
 * as an administrator reads them. A state a page does not show yet is a todo here, named.
 */
import { describe, expect, it } from 'vitest';
import { within } from '@testing-library/react';
import { answer, me, mockThePlane, never, openConsole, page, ORG, refused, reply, screen } from './console.harness.js';

mockThePlane();

const TOKEN = '0190c0de-0000-7000-8000-0000000000f1';
const token = {
  id: TOKEN,
  org_id: ORG,
  name: 'lpr-gate-2',
  enabled: true,
  rate_limit: null,
  created_at: '2026-11-01T08:00:00.000Z',
  last_used_at: null,
};

describe('module tokens (/admin/tokens)', () => {
  it('loading', async () => {
    openConsole('/admin/tokens', 'admin', reply('get', '/api/v1/module-tokens', never));
    expect(await (await page()).findByText('Loading module tokens…')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Create token' })).toBeTruthy();
  });

  it('empty: said in words, the form stays', async () => {
    openConsole('/admin/tokens', 'admin', answer('get', '/api/v1/module-tokens', { rows: [], next: null }));
    expect(await screen.findByText('No module token yet: create one for each module that sends events.')).toBeTruthy();
    expect(screen.queryByRole('table')).toBeNull();
    expect(screen.getByPlaceholderText('Name (e.g. lpr-gate-2)')).toBeTruthy();
  });

  it('data: name, default rate, never used, enabled, its actions', async () => {
    openConsole(
      '/admin/tokens',
      'admin',
      answer('get', '/api/v1/module-tokens', {
        rows: [token, { ...token, id: `${TOKEN.slice(0, -1)}2`, name: 'ocr', enabled: false, rate_limit: 25 }],
        next: null,
      }),
    );
    const row = (await screen.findByText('lpr-gate-2')).closest('tr')!;
    expect([...row.querySelectorAll('td')].slice(0, 4).map((c) => c.textContent)).toEqual([
      'lpr-gate-2',
      'default',
      'never',
      'enabled',
    ]);
    expect(within(row).getByRole('button', { name: 'Disable' })).toBeTruthy();
    expect(within(row).getByRole('button', { name: 'Rotate' })).toBeTruthy();
    const off = screen.getByText('ocr').closest('tr')!;
    expect(within(off).getByText('25')).toBeTruthy();
    expect(within(off).getByRole('button', { name: 'Enable' })).toBeTruthy();
  });

  it('error: a refused list read is a sentence, never the code, and the form stays', async () => {
    openConsole(
      '/admin/tokens',
      'admin',
      reply('get', '/api/v1/module-tokens', () => refused(503, 'db_unavailable')),
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/^The module tokens could not be read: /);
    expect(alert.textContent).not.toContain('db_unavailable');
    expect(screen.getByRole('button', { name: 'Create token' })).toBeTruthy();
  });
});

describe('usage (/admin/usage)', () => {
  const usage = {
    org_id: ORG,
    org_name: 'Harbour',
    cameras_count: 9,
    max_cameras: 10,
    users_count: 3,
    max_users: null,
    attachment_bytes: 0,
    attachment_quota_bytes: 1000,
    dashboards_count: 1,
    max_dashboards: 50,
    reports_count: 0,
    max_reports: 100,
    tags_count: 2,
    max_tags: 100,
    event_templates_count: 0,
    max_event_templates: 50,
    events_count: 12345,
    attachments_count: 0,
    sessions_count: 1,
    max_sessions_per_user: null,
    agents_count: 0,
    max_agents: null,
    agent_devices_count: 0,
    max_agent_devices: null,
    agent_access_rules_count: 0,
    max_agent_access_rules: null,
  };

  it('loading', async () => {
    openConsole('/admin/usage', 'admin', reply('get', '/api/v1/usage', never));
    expect(await (await page()).findByText('Loading…')).toBeTruthy();
  });

  it('error', async () => {
    openConsole(
      '/admin/usage',
      'admin',
      reply('get', '/api/v1/usage', () => refused(403, 'forbidden')),
    );
    expect(await screen.findByText('The usage could not be read.')).toBeTruthy();
  });

  it('data: counts against quotas, over 80% marked, no quota said as unlimited', async () => {
    openConsole('/admin/usage', 'admin', answer('get', '/api/v1/usage', usage));
    expect(await screen.findByRole('heading', { name: 'Usage of Harbour' })).toBeTruthy();
    const cameras = screen.getByText('Cameras', { selector: 'td' }).closest('tr')!;
    expect(within(cameras).getByText('9 of 10')).toBeTruthy();
    expect(cameras.className).toBe('near');
    const people = screen.getByText('People', { selector: 'td' }).closest('tr')!;
    expect(within(people).getByText('3 of unlimited')).toBeTruthy();
    expect(people.className).toBe('');
    expect(screen.getByText((12345).toLocaleString())).toBeTruthy();
  });

  it('empty: an organisation with nothing yet reads zeros', async () => {
    openConsole(
      '/admin/usage',
      'admin',
      answer('get', '/api/v1/usage', { ...usage, cameras_count: 0, users_count: 0, events_count: 0 }),
    );
    expect(await screen.findByText('0 of 10')).toBeTruthy();
  });
});

describe('organisations (/admin/orgs, superadmin)', () => {
  const org = {
    id: ORG,
    name: 'Harbour',
    created_at: '2026-01-01T00:00:00.000Z',
    max_cameras: 10,
    max_users: 20,
    max_dashboards: 50,
    max_reports: 100,
    max_tags: 100,
    max_event_templates: 50,
    attachment_quota_bytes: null,
    max_sessions_per_user: null,
    max_agents: null,
    max_agent_devices: null,
    max_agent_access_rules: null,
  };

  it('empty: the form to add one', async () => {
    openConsole('/admin/orgs', 'superadmin', answer('get', '/api/v1/orgs', { rows: [], next: null }));
    expect(await screen.findByRole('button', { name: 'Add organisation' })).toBeTruthy();
    expect(screen.queryByLabelText(/ name$/)).toBeNull();
  });

  it('data: each organisation with its name to edit', async () => {
    openConsole('/admin/orgs', 'superadmin', answer('get', '/api/v1/orgs', { rows: [org], next: null }));
    expect(((await screen.findByLabelText('Harbour name')) as HTMLInputElement).value).toBe('Harbour');
  });

  it('loading: the list says it is read', async () => {
    openConsole('/admin/orgs', 'superadmin', reply('get', '/api/v1/orgs', never));
    expect(await screen.findByText('Loading organisations…')).toBeTruthy();
  });

  it('error: a refused list read is a sentence, never the code, and the form stays', async () => {
    openConsole(
      '/admin/orgs',
      'superadmin',
      reply('get', '/api/v1/orgs', () => refused(503, 'db_unavailable')),
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/^The organisations could not be read: /);
    expect(alert.textContent).not.toContain('db_unavailable');
    expect(screen.getByRole('button', { name: 'Add organisation' })).toBeTruthy();
  });
});

describe('people (/admin/people)', () => {
  const user = (login: string, role: 'admin' | 'user', disabled = false) => ({
    ...me(role).user,
    role,
    id: `0190c0de-0000-7000-8000-${login.padStart(12, '0').slice(-12)}`,
    login,
    disabled,
  });

  it('data: the people with their roles and state, the tags', async () => {
    openConsole(
      '/admin/people',
      'admin',
      answer('get', '/api/v1/users', { rows: [user('ada', 'admin'), user('op1', 'user', true)], next: null }),
      answer('get', '/api/v1/tags', {
        rows: [{ id: '0190c0de-0000-7000-8000-0000000000a7', org_id: ORG, name: 'perimeter' }],
        next: null,
      }),
    );
    const op = (await screen.findByText('op1')).closest('tr')!;
    expect(within(op).getByText('disabled')).toBeTruthy();
    expect(screen.getByText('ada').closest('tr')).toBeTruthy();
    expect(await screen.findByDisplayValue('perimeter')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Add person' })).toBeTruthy();
  });

  it('empty: no one but the form', async () => {
    openConsole(
      '/admin/people',
      'admin',
      answer('get', '/api/v1/users', { rows: [], next: null }),
      answer('get', '/api/v1/tags', { rows: [], next: null }),
    );
    expect(await screen.findByRole('button', { name: 'Add person' })).toBeTruthy();
    expect(screen.queryByText('op1')).toBeNull();
  });

  it('loading: the list says it is read', async () => {
    openConsole(
      '/admin/people',
      'admin',
      reply('get', '/api/v1/users', never),
      answer('get', '/api/v1/tags', { rows: [], next: null }),
    );
    expect(await screen.findByText('Loading people…')).toBeTruthy();
  });

  it('error: a refused list read is a sentence, never the code, and the form stays', async () => {
    openConsole(
      '/admin/people',
      'admin',
      reply('get', '/api/v1/users', () => refused(503, 'db_unavailable')),
      answer('get', '/api/v1/tags', { rows: [], next: null }),
    );
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/^The people could not be read: /);
    expect(alert.textContent).not.toContain('db_unavailable');
    expect(screen.getByRole('button', { name: 'Add person' })).toBeTruthy();
  });
});

describe('audit (/admin/audit)', () => {
  const actions = answer('get', '/api/v1/audit/actions', { rows: ['camera.create', 'user.login'] });
  const quiet = reply('get', '/api/v1/audit/stream', never);

  it('error: the 31-day rule said in words', async () => {
    openConsole(
      '/admin/audit?q=camera',
      'admin',
      actions,
      reply('get', '/api/v1/audit', () => refused(400, 'audit_search_requires_explicit_range')),
    );
    expect((await screen.findByRole('alert')).textContent).toBe(
      'A search needs a "from" date: it looks through at most 31 days.',
    );
  });

  it('empty: the filters, no row', async () => {
    openConsole(
      '/admin/audit',
      'admin',
      actions,
      quiet,
      answer('get', '/api/v1/audit', { rows: [], stream_cursor: 'g:0' }),
    );
    expect(await screen.findByText('New records appear as they happen.', { exact: false })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Older' })).toBeNull();
  });

  it('data: who did what to which object, from where', async () => {
    openConsole(
      '/admin/audit',
      'admin',
      actions,
      quiet,
      answer('get', '/api/v1/audit', {
        rows: [
          {
            id: '0190c0de-0000-7000-8000-0000000000a9',
            occurred_at: '2026-11-25T10:00:00.000Z',
            org_id: ORG,
            actor_id: me('admin').user.id,
            actor_name: 'ada',
            actor_role: 'admin',
            action: 'camera.create',
            object_type: 'camera',
            object_id: '0190c0de-0000-7000-8000-0000000000c1',
            object_name: 'Gate north',
            ip: '10.0.0.7',
            ended_at: null,
            node_id: null,
            params: {},
            user_agent: 'Chromium',
          },
        ],
        stream_cursor: 'g:1',
      }),
    );
    const row = (await screen.findByText('camera.create', { selector: 'td' })).closest('tr')!;
    expect(within(row).getByText('ada')).toBeTruthy();
    expect(within(row).getByText('10.0.0.7')).toBeTruthy();
    expect(row.textContent).toContain('camera Gate north');
  });
});
