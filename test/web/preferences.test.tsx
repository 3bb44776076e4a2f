// @vitest-environment happy-dom
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReactNode } from 'react';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { usePreferences } from '../../web/src/hooks/use-preferences.js';
import { useSavePreferences } from '../../web/src/hooks/use-save-preferences.js';
import type { Preferences, PreferencesChange } from '../../web/src/api/preferences.js';
import { ApiFailure } from '../../web/src/api/client.js';
import { errorSentence } from '../../web/src/api/error-words.js';

// The console's calls of GET and PUT /api/v1/me/preferences against a mocked plane.
const plane = setupServer();
beforeAll(() => plane.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  plane.resetHandlers();
  localStorage.clear();
});
afterAll(() => plane.close());

const CAMERA = '0190c0de-0000-7000-8000-0000000000c1';
const DEFAULTS: Preferences = { timezone: null, clock: '24h', views: [] };

function wrapper() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  return ({ children }: { children: ReactNode }) => <QueryClientProvider client={qc}>{children}</QueryClientProvider>;
}

describe('hooks/use-preferences.ts', () => {
  it('reads the own record with the session; a save sends it whole and caches the reply without a second read', async () => {
    localStorage.setItem('argus.session', 'session-1');
    const seen: Array<{ method: string; auth: string | null; body: unknown }> = [];
    plane.use(
      http.get('/api/v1/me/preferences', ({ request }) => {
        seen.push({ method: 'GET', auth: request.headers.get('authorization'), body: null });
        return HttpResponse.json(DEFAULTS);
      }),
      http.put('/api/v1/me/preferences', async ({ request }) => {
        const body = (await request.json()) as PreferencesChange;
        seen.push({ method: 'PUT', auth: request.headers.get('authorization'), body });
        // The plane answers the record as read: here a camera the user no longer sees is left out.
        return HttpResponse.json({ ...body, views: body.views.map((v) => ({ ...v, camera_ids: [] })) });
      }),
    );
    const w = wrapper();
    const read = renderHook(() => usePreferences(), { wrapper: w });
    await waitFor(() => expect(read.result.current.data).toEqual(DEFAULTS));
    const save = renderHook(() => useSavePreferences(), { wrapper: w });
    const change: PreferencesChange = {
      timezone: 'Europe/Paris',
      clock: '12h',
      views: [{ name: 'Gate', layout: '2x2', camera_ids: [CAMERA] }],
    };
    await act(() => save.result.current.mutateAsync(change));
    await waitFor(() =>
      expect(read.result.current.data).toEqual({ ...change, views: [{ name: 'Gate', layout: '2x2', camera_ids: [] }] }),
    );
    expect(seen).toEqual([
      { method: 'GET', auth: 'Bearer session-1', body: null },
      { method: 'PUT', auth: 'Bearer session-1', body: change },
    ]);
  });

  it('a refusal is an ApiFailure said in words, and the cached record stays', async () => {
    plane.use(
      http.get('/api/v1/me/preferences', () => HttpResponse.json(DEFAULTS)),
      http.put('/api/v1/me/preferences', () => HttpResponse.json({ error: 'bad_timezone' }, { status: 400 })),
    );
    const w = wrapper();
    const read = renderHook(() => usePreferences(), { wrapper: w });
    await waitFor(() => expect(read.result.current.data).toEqual(DEFAULTS));
    const save = renderHook(() => useSavePreferences(), { wrapper: w });
    const err = await act(() =>
      save.result.current.mutateAsync({ timezone: 'Mars/Olympus', clock: '24h', views: [] }).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(ApiFailure);
    expect((err as ApiFailure).code).toBe('bad_timezone');
    expect(errorSentence(err)).toBe("The time zone is not known: choose one from the list, or the browser's own.");
    expect(read.result.current.data).toEqual(DEFAULTS);
  });
});
