// @vitest-environment happy-dom
/**
 * The nodes page (superadmin) against a mocked plane (issue 22): its states, adding, enabling and
 * disabling a node, a refused add said beside its field; none of it for an administrator.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { http, mockThePlane, ok, page, refused, reply, screen } from './console.harness.js';
import { NODE } from './fixtures.js';
import { openConsole, node, nodes, licence, field, type, besideOf, type NodeRow } from './cameras-nodes.fixtures.js';

mockThePlane();

describe('nodes page', () => {
  it('superadmin: each node with its state, licence and version, linked to its own page', async () => {
    openConsole(
      '/admin/nodes',
      'superadmin',
      nodes(
        node(),
        node({ id: '0190c0de-0000-7000-8000-0000000000d2', name: 'old site', enabled: false, state: 'disabled' }),
      ),
      licence,
    );
    const main = await page();
    const row = within((await main.findByText('site north')).closest('tr')!);
    expect(row.getByTestId('node-state').textContent).toBe('answering');
    expect(await row.findByText('licensed, until 2027-12-31')).toBeTruthy();
    expect(row.getByText('1.4.0')).toBeTruthy();
    expect(row.getByRole('link', { name: 'site north' }).getAttribute('href')).toBe(`/admin/nodes/${NODE}`);
    const old = within(main.getByText('old site').closest('tr')!);
    expect(old.getByTestId('node-state').textContent).toBe('disabled');
    expect(old.getByRole('button', { name: 'Enable old site' })).toBeTruthy();
  });

  it('superadmin: the empty fleet reads "Add your first node"; a node is added and disabled', async () => {
    const posted: unknown[] = [];
    const patched: unknown[] = [];
    let rows: NodeRow[] = [];
    openConsole(
      '/admin/nodes',
      'superadmin',
      http.get('/api/v1/nodes', () => ok({ rows, next: null })),
      licence,
      http.post('/api/v1/nodes', async ({ request }) => {
        posted.push(await request.json());
        rows = [node({ state: 'unknown', last_seen_at: null, version: null })];
        return ok(rows[0]);
      }),
      http.patch('/api/v1/nodes/:id', async ({ request }) => {
        patched.push(await request.json());
        rows = [node({ enabled: false, state: 'disabled' })];
        return ok(rows[0]);
      }),
    );
    const main = await page();
    expect(await main.findByRole('heading', { name: 'Add your first node' })).toBeTruthy();
    fireEvent.click(main.getByRole('button', { name: 'Add node' }));
    type('Name', 'site north');
    type('URL', 'http://10.0.0.20:8081');
    type('Write token', 'node-write-token');
    type('Viewer secret', 'viewer-secret-32-characters-long');
    fireEvent.click(screen.getByRole('button', { name: 'Save node' }));
    expect(await screen.findByText('site north was added: the plane polls it within seconds.')).toBeTruthy();
    expect(posted).toEqual([
      {
        name: 'site north',
        url: 'http://10.0.0.20:8081',
        api_token: 'node-write-token',
        auth_backend_secret: 'viewer-secret-32-characters-long',
        enabled: true,
      },
    ]);
    expect(await screen.findByText('not polled yet')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Disable site north' }));
    await waitFor(() => expect(patched).toEqual([{ enabled: false }]));
    expect(await screen.findByRole('button', { name: 'Enable site north' })).toBeTruthy();
  });

  it('superadmin: a refused node keeps what was typed, the sentence beside the URL', async () => {
    openConsole(
      '/admin/nodes',
      'superadmin',
      nodes(),
      reply('post', '/api/v1/nodes', () => refused(400, 'bad_url')),
    );
    fireEvent.click(await (await page()).findByRole('button', { name: 'Add node' }));
    type('Name', 'site north');
    type('URL', 'ftp://10.0.0.20');
    type('Write token', 'node-write-token');
    fireEvent.click(screen.getByRole('button', { name: 'Save node' }));
    await waitFor(() => expect(besideOf('URL')).toBe('The address is not a valid http(s) URL.'));
    expect(field('URL').value).toBe('ftp://10.0.0.20');
    expect(field('Write token').value).toBe('node-write-token');
  });

  it('an administrator has no node management: no Nodes entry, and the page is not its own', async () => {
    openConsole('/admin/nodes', 'admin');
    expect(await screen.findByText('Not available to your role.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add node' })).toBeNull();
    const nav = screen.getByRole('navigation');
    const labels = [...nav.querySelectorAll('a')].map((a) => a.textContent);
    expect(labels).toContain('Cameras');
    expect(labels).not.toContain('Nodes');
  });

  it('an operator opening the cameras page reads "Not available to your role"', async () => {
    openConsole('/admin/cameras', 'user');
    expect(await screen.findByText('Not available to your role.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Add camera' })).toBeNull();
  });
});
