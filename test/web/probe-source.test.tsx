// @vitest-environment happy-dom
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ReactNode } from 'react';
import { act, cleanup, renderHook } from '@testing-library/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { useProbeSource } from '../../web/src/hooks/use-cameras.js';
import type { ProbeRequest, ProbeResult } from '../../web/src/api/cameras.js';
import { ApiFailure } from '../../web/src/api/client.js';
import { errorSentence } from '../../web/src/api/error-words.js';

// "Test source" (POST /api/v1/cameras/probe, document 4 §12) from the console, against a mocked plane.
const plane = setupServer();
beforeAll(() => plane.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  cleanup();
  plane.resetHandlers();
  localStorage.clear();
});
afterAll(() => plane.close());

const REQUEST: ProbeRequest = { node_id: '0190c0de-0000-7000-8000-0000000000a1', url: 'rtsp://10.0.0.5/live' };

function wrapper() {
  const qc = new QueryClient({ defaultOptions: { mutations: { retry: false } } });
  return ({ children }: { children: ReactNode }) => <QueryClientProvider client={qc}>{children}</QueryClientProvider>;
}

describe('hooks/use-cameras.ts useProbeSource', () => {
  it("sends the node and the source with the session and answers the node's findings, a source it cannot read as a result", async () => {
    localStorage.setItem('argus.session', 'session-1');
    const seen: unknown[] = [];
    const found: ProbeResult = {
      ok: true,
      video: { codec: 'h264', width: 1920, height: 1080, fps: 25 },
      audio: null,
      error: null,
    };
    const refused: ProbeResult = {
      ok: false,
      video: null,
      audio: null,
      error: 'the source refused the login: check the user name and password',
    };
    let next = found;
    plane.use(
      http.post('/api/v1/cameras/probe', async ({ request }) => {
        seen.push([request.headers.get('authorization'), await request.json()]);
        return HttpResponse.json(next);
      }),
    );
    const probe = renderHook(() => useProbeSource(), { wrapper: wrapper() });
    expect(await act(() => probe.result.current.mutateAsync(REQUEST))).toEqual(found);
    next = refused;
    expect(await act(() => probe.result.current.mutateAsync(REQUEST))).toEqual(refused);
    expect(seen).toEqual([
      ['Bearer session-1', REQUEST],
      ['Bearer session-1', REQUEST],
    ]);
  });

  it("the plane's refusal is an ApiFailure said in words", async () => {
    plane.use(
      http.post('/api/v1/cameras/probe', () => HttpResponse.json({ error: 'node_unreachable' }, { status: 502 })),
    );
    const probe = renderHook(() => useProbeSource(), { wrapper: wrapper() });
    const err = await act(() =>
      probe.result.current.mutateAsync(REQUEST).then(
        () => null,
        (e: unknown) => e,
      ),
    );
    expect(err).toBeInstanceOf(ApiFailure);
    expect((err as ApiFailure).code).toBe('node_unreachable');
    expect(errorSentence(err)).toBe('The node did not answer: check that it runs and is reachable from the plane.');
  });
});
