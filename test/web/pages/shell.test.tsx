// @vitest-environment happy-dom
/**
 * The shell over the table of pages (issue 21 §4): the navigation each role sees, the role gate,
 * unknown addresses, deep links, the sign-in with its kept place and the session's end.
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor } from '@testing-library/react';
import { http, me, mockThePlane, never, ok, openConsole, refused, screen } from './console.harness.js';

mockThePlane();

describe('the navigation follows the role (document 1 roles)', () => {
  const cameras = http.get('/api/v1/cameras', () => ok({ rows: [], next: null }));
  it.each([
    ['user', ['Live', 'Events', 'Review', 'Dashboards', 'Reports', 'Profile']],
    [
      'admin',
      [
        'Live',
        'Events',
        'Review',
        'Dashboards',
        'Reports',
        'Cameras',
        'Module tokens',
        'Templates',
        'People',
        'Usage',
        'Audit',
        'Notifications',
        'Profile',
      ],
    ],
    [
      'superadmin',
      [
        'Live',
        'Events',
        'Review',
        'Dashboards',
        'Reports',
        'Cameras',
        'Module tokens',
        'Templates',
        'People',
        'Organisations',
        'Usage',
        'Audit',
        'Notifications',
        'Monitor',
        'Nodes',
        'Settings',
        'Profile',
      ],
    ],
  ] as const)('%s sees %j', async (role, entries) => {
    openConsole('/live', role, cameras);
    const nav = await screen.findByRole('navigation');
    expect([...nav.querySelectorAll('a')].map((a) => a.textContent)).toEqual(entries);
    expect(nav.querySelector('a.on')?.textContent).toBe('Live');
  });
});

describe('the role gate', () => {
  it.each([
    ['user', '/admin/settings'],
    ['user', '/admin/tokens'],
    ['admin', '/admin/settings'],
    ['admin', '/admin/orgs'],
    ['admin', '/admin/nodes/0190c0de-0000-7000-8000-0000000000c1'],
  ] as const)('%s on %s reads "Not available to your role", not the page', async (role, path) => {
    // No handler for the page's own reads: a request for them would fail the test.
    openConsole(path, role);
    expect(await screen.findByText('Not available to your role.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: /save/i })).toBeNull();
    expect(screen.queryByRole('form')).toBeNull();
    expect(screen.getByRole('navigation')).toBeTruthy();
  });
});

describe('addresses', () => {
  it('an unknown path answers "No such page." inside the shell', async () => {
    openConsole('/admin/nothing', 'superadmin');
    expect(await screen.findByText('No such page.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeTruthy();
  });

  it('a malformed escape in a deep link is no page, not a request', async () => {
    openConsole('/events/%E0', 'user');
    expect(await screen.findByText('No such page.')).toBeTruthy();
  });

  it('the root opens the live grid', async () => {
    const { router } = openConsole(
      '/',
      'user',
      http.get('/api/v1/cameras', () => ok({ rows: [], next: null })),
    );
    expect(await screen.findByText('No camera you may see yet.')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/live');
  });

  it('a deep link opened signed out shows the sign-in and returns to itself after it', async () => {
    const { router } = openConsole(
      '/cameras/0190c0de-0000-7000-8000-0000000000c1',
      null,
      http.post('/api/v1/auth/login', () => ok({ token: 'fresh' })),
      http.get('/api/v1/auth/me', () => ok(me('user'))),
      http.get('/api/v1/cameras/:id', never),
    );
    fireEvent.change(await screen.findByLabelText('Login'), { target: { value: 'op' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/cameras/0190c0de-0000-7000-8000-0000000000c1'));
    expect(await screen.findByRole('navigation')).toBeTruthy();
    expect(localStorage.getItem('argus.session')).toBe('fresh');
  });

  it('signing out ends the session on the plane and shows the sign-in', async () => {
    let ended = false;
    const { router } = openConsole(
      '/live',
      'user',
      http.get('/api/v1/cameras', () => ok({ rows: [], next: null })),
      http.post('/api/v1/auth/logout', () => {
        ended = true;
        return new Response(null, { status: 204 });
      }),
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('button', { name: 'Sign in' })).toBeTruthy();
    expect(ended).toBe(true);
    expect(localStorage.getItem('argus.session')).toBeNull();
    expect(router.state.location.pathname).toBe('/login');
  });

  it('a session that ends goes to the sign-in with the place kept, and back there after it', async () => {
    let signedIn = false;
    const { router } = openConsole(
      '/admin/usage?org_id=x',
      'admin',
      http.get('/api/v1/usage', () => (signedIn ? never() : refused(401, 'unauthorized'))),
      http.post('/api/v1/auth/login', () => {
        signedIn = true;
        return ok({ token: 'again' });
      }),
    );
    expect(await screen.findByText('Your session ended: sign in again to go back where you were.')).toBeTruthy();
    expect(router.state.location.pathname + router.state.location.search).toBe(
      `/login?next=${encodeURIComponent('/admin/usage?org_id=x')}`,
    );
    expect(localStorage.getItem('argus.session')).toBeNull();
    fireEvent.change(screen.getByLabelText('Login'), { target: { value: 'ad' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'pw' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() =>
      expect(router.state.location.pathname + router.state.location.search).toBe('/admin/usage?org_id=x'),
    );
    expect(await screen.findByRole('navigation')).toBeTruthy();
    expect(localStorage.getItem('argus.session')).toBe('again');
  });
});
