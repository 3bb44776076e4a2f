// @vitest-environment happy-dom
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { OfflineBanner, isNetworkFailure } from '../../web/src/components/offline-banner.js';
import { usePreferences } from '../../web/src/hooks/use-preferences.js';
import { ApiFailure } from '../../web/src/api/client.js';

// Issue 22: the console says so when it is offline: the browser has no network (navigator.onLine
// and its events), or a read got no answer at all (the service worker still opens the shell). A
// refusal of the plane is an answer: no banner. The next answer takes the banner away.
const plane = setupServer();
beforeAll(() => plane.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  plane.resetHandlers();
  setOnLine(true);
});
afterAll(() => plane.close());

const PREFS = { time_zone: null, hour_cycle: 'h23', language: null, cameras: [] };

function setOnLine(on: boolean) {
  Object.defineProperty(navigator, 'onLine', { configurable: true, get: () => on });
  window.dispatchEvent(new Event(on ? 'online' : 'offline'));
}

/** Something of the console that reads from the plane, beside the banner, as main.tsx renders them. */
function Reader() {
  const prefs = usePreferences();
  return <p>{prefs.isSuccess ? 'read' : prefs.isError ? 'not read' : 'reading'}</p>;
}

function renderConsole() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <Reader />
      <OfflineBanner />
    </QueryClientProvider>,
  );
}

const banner = () => screen.queryByRole('status');

describe('the offline banner', () => {
  it('shows while the browser is offline, and goes when it is back', async () => {
    plane.use(http.get('/api/v1/me/preferences', () => HttpResponse.json(PREFS)));
    renderConsole();
    await screen.findByText('read');
    expect(banner()).toBeNull();
    act(() => setOnLine(false));
    expect(banner()!.textContent).toMatch(/^You are offline: this device has no network\./);
    act(() => setOnLine(true));
    expect(banner()).toBeNull();
  });

  it('shows when a read gets no answer; "Try again" reads again and the answer takes it away', async () => {
    plane.use(http.get('/api/v1/me/preferences', () => HttpResponse.error()));
    renderConsole();
    await screen.findByText('not read');
    expect(banner()!.textContent).toMatch(/^You are offline: the plane does not answer\./);
    plane.use(http.get('/api/v1/me/preferences', () => HttpResponse.json(PREFS)));
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByText('read');
    // The banner hears the answer from the query cache, a tick after the reader draws it (a loaded machine shows the gap).
    await waitFor(() => expect(banner()).toBeNull());
  });

  it('a refusal of the plane is an answer: no banner', async () => {
    plane.use(
      http.get('/api/v1/me/preferences', () => HttpResponse.json({ error: 'db_unavailable' }, { status: 503 })),
    );
    renderConsole();
    await screen.findByText('not read');
    expect(banner()).toBeNull();
  });

  it('a plane that answers outweighs a browser that says it is offline from the start (loopback alone)', async () => {
    // Chromium on a machine whose only network is loopback says offline, while the plane beside it answers.
    setOnLine(false);
    plane.use(http.get('/api/v1/me/preferences', () => HttpResponse.json(PREFS)));
    renderConsole();
    await screen.findByText('read');
    await waitFor(() => expect(banner()).toBeNull());
    // The browser saying it went offline again is believed until the plane answers again.
    act(() => setOnLine(false));
    expect(banner()!.textContent).toMatch(/^You are offline: this device has no network\./);
  });

  it('isNetworkFailure: the words of each browser, not a refusal nor a bug', () => {
    expect(isNetworkFailure(new TypeError('Failed to fetch'))).toBe(true);
    expect(isNetworkFailure(new TypeError('NetworkError when attempting to fetch resource.'))).toBe(true);
    expect(isNetworkFailure(new TypeError('Load failed'))).toBe(true);
    expect(isNetworkFailure(new ApiFailure(503, 'db_unavailable', null))).toBe(false);
    expect(isNetworkFailure(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
  });
});
