// @vitest-environment happy-dom
/**
 * The shell's Menu (issue 22): on a phone the navigation is a list behind a "Menu" button, which
 * lists every page of the role (the table of pages), closes on a choice or Escape; the signed-in
 * name carries its whole text and role as a title (the ellipsis is styles.css's).
 */
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor, within } from '@testing-library/react';
import { CONSOLE_PAGES, mayOpen, type ConsolePage } from '../../../src/common/console-pages.js';
import { http, me, mockThePlane, ok, openConsole, screen } from './console.harness.js';

mockThePlane();

const cameras = http.get('/api/v1/cameras', () => ok({ rows: [], next: null }));
const labelsOf = (role: string) =>
  (CONSOLE_PAGES as readonly ConsolePage[]).filter((p) => p.label && mayOpen(p, role)).map((p) => p.label);

describe('the Menu lists the pages of the role', () => {
  it.each(['user', 'admin', 'superadmin'] as const)(
    '%s: every labelled page it may open, and only those',
    async (role) => {
      openConsole('/live', role, cameras);
      const button = await screen.findByRole('button', { name: 'Menu' });
      expect(button.getAttribute('aria-expanded')).toBe('false');
      fireEvent.click(button);
      expect(button.getAttribute('aria-expanded')).toBe('true');
      const nav = screen.getByRole('navigation', { name: 'Pages' });
      expect(button.getAttribute('aria-controls')).toBe(nav.id);
      expect(nav.className).toBe('open');
      const links = within(nav).getAllByRole('link');
      expect(links.map((a) => a.textContent)).toEqual(labelsOf(role));
      // The administrators' and superadmin's pages are in the menu only for them.
      expect(links.some((a) => a.getAttribute('href') === '/admin/monitor')).toBe(role === 'superadmin');
      expect(links.some((a) => a.getAttribute('href') === '/admin/people')).toBe(role !== 'user');
    },
  );

  it('a choice opens the page and closes the menu; Escape closes it', async () => {
    const { router } = openConsole(
      '/live',
      'admin',
      cameras,
      http.get('/api/v1/events', () => new Promise(() => {})),
    );
    const button = await screen.findByRole('button', { name: 'Menu' });
    fireEvent.click(button);
    fireEvent.click(within(screen.getByRole('navigation', { name: 'Pages' })).getByRole('link', { name: 'Events' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/feed'));
    // The shell has drawn the new page's path (its change closes the menu too) before the menu is opened again.
    const nav = screen.getByRole('navigation', { name: 'Pages' });
    await waitFor(() => expect(within(nav).getByRole('link', { name: 'Events' }).className).toBe('on'));
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'));
    fireEvent.click(button);
    expect(button.getAttribute('aria-expanded')).toBe('true');
    fireEvent.keyDown(document, { key: 'Escape' });
    await waitFor(() => expect(button.getAttribute('aria-expanded')).toBe('false'));
  });
});

describe('a long name', () => {
  it('is shown whole in the title, with the role, beside the menu', async () => {
    const long = 'Maximiliana Theodora Wolkenstein-Oberhausen von und zu Liechtenberg';
    const body = me('user');
    body.user.name = long;
    // A handler given here comes before the harness's own GET /auth/me.
    openConsole(
      '/live',
      'user',
      cameras,
      http.get('/api/v1/auth/me', () => ok(body)),
    );
    const who = await screen.findByText(long);
    expect(who.className).toBe('who');
    expect(who.getAttribute('title')).toBe(`${long} (user)`);
    expect(screen.getByRole('button', { name: 'Menu' })).toBeTruthy();
    // The name opens the user's profile.
    expect(who.tagName).toBe('A');
    expect(who.getAttribute('href')).toBe('/profile');
  });
});
