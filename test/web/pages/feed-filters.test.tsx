// @vitest-environment happy-dom
/**
 * The feed and the card of issue 22 against a mocked plane: the from/to window kept in the URL,
 * shown in words and cleared; a colour class per severity on loaded and live rows; the detector
 * first; a thumbnail only for an image attachment; Newer disabled on the newest event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fireEvent, waitFor } from '@testing-library/react';
import { HttpResponse } from 'msw';
import { answer, http, mockThePlane, never, ok, openConsole, reply, screen } from './console.harness.js';
import { camera, EVENT, event } from './fixtures.js';
import { localInput } from '../../../web/src/lib/feed-range.js';

mockThePlane();

// happy-dom lays nothing out: the feed's list is given the height of a screen, so the virtual
// list mounts its rows as a browser would.
const sized = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'clientHeight');
beforeAll(() => {
  Object.defineProperty(HTMLElement.prototype, 'clientHeight', {
    configurable: true,
    get(this: HTMLElement) {
      return this.dataset.testid === 'feed-list' ? 800 : (sized?.get?.call(this) ?? 0);
    },
  });
});
afterAll(() => {
  if (sized) Object.defineProperty(HTMLElement.prototype, 'clientHeight', sized);
});

const cameras = answer('get', '/api/v1/cameras', { rows: [camera()], next: null });
/** The stream after the first page: `frames` (JSON bodies), then open and quiet. */
const stream = (...frames: object[]) =>
  reply(
    'get',
    '/api/v1/events/stream',
    () =>
      new HttpResponse(
        new ReadableStream({
          start: (c) =>
            c.enqueue(
              new TextEncoder().encode(
                frames.map((f, i) => `id: g:${43 + i}\ndata: ${JSON.stringify(f)}\n\n`).join('') + ': open\n\n',
              ),
            ),
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      ),
  );
const idOf = (n: number) => `0190c0de-0000-7000-8000-0000000000${(0xe0 + n).toString(16)}`;

describe('the time window (from/to) of the feed', () => {
  it('a window in the address is shown in words and asked of the plane; Clear time removes it', async () => {
    const asked: string[] = [];
    const from = '2026-11-25T08:00:00.000Z',
      to = '2026-11-25T12:00:00.000Z';
    const { router } = openConsole(
      `/feed?from=${from}&to=${to}&severity=warning`,
      'user',
      cameras,
      http.get('/api/v1/events', ({ request }) => {
        asked.push(new URL(request.url).search);
        return ok({ rows: [], next_ts: null, next_id: null, stream_cursor: 'g:42' });
      }),
      stream(),
    );
    const shown = await screen.findByTestId('time-window');
    expect(shown.textContent).toMatch(/^From .+ to .+Clear time$/);
    expect([...shown.querySelectorAll('time')].map((t) => t.getAttribute('datetime'))).toEqual([from, to]);
    await waitFor(() => expect(asked.length).toBeGreaterThan(0));
    const q = new URLSearchParams(asked[0]);
    expect([q.get('from'), q.get('to')]).toEqual([from, to]);
    // The picker says it is a chosen window, with its two moments in the browser's zone.
    expect(screen.getByRole<HTMLSelectElement>('combobox', { name: 'Time' }).value).toBe('custom');
    expect(screen.getByLabelText<HTMLInputElement>('From').value).toBe(localInput(from));

    fireEvent.click(screen.getByRole('button', { name: 'Clear time' }));
    await waitFor(() => expect(router.state.location.search).toBe('?severity=warning'));
    expect(screen.queryByTestId('time-window')).toBeNull();
  });

  it('a preset writes `from` into the address (and no `to`); two typed moments write both', async () => {
    const { router } = openConsole(
      '/feed',
      'user',
      cameras,
      answer('get', '/api/v1/events', { rows: [], next_ts: null, next_id: null, stream_cursor: 'g:42' }),
      stream(),
    );
    const time = await screen.findByRole<HTMLSelectElement>('combobox', { name: 'Time' });
    expect(screen.queryByTestId('time-window')).toBeNull();
    const before = Date.now();
    fireEvent.change(time, { target: { value: '24h' } });
    await waitFor(() => expect(router.state.location.search).toMatch(/^\?from=/));
    const from = Date.parse(new URLSearchParams(router.state.location.search).get('from')!);
    expect(from).toBeGreaterThanOrEqual(before - 86_400_000 - 1000);
    expect(from).toBeLessThanOrEqual(Date.now() - 86_400_000 + 1000);
    expect((await screen.findByTestId('time-window')).textContent).toMatch(/to now, live/);

    fireEvent.change(screen.getByRole('combobox', { name: 'Time' }), { target: { value: 'custom' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-20T08:30' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-21T09:45' } });
    fireEvent.click(screen.getByRole('button', { name: 'Set time' }));
    await waitFor(() =>
      expect(Object.fromEntries(new URLSearchParams(router.state.location.search))).toEqual({
        from: new Date('2026-11-20T08:30').toISOString(),
        to: new Date('2026-11-21T09:45').toISOString(),
      }),
    );
  });

  it('a "From" after "To" is said, and not sent', async () => {
    openConsole('/feed', 'user', cameras, reply('get', '/api/v1/events', never));
    fireEvent.change(await screen.findByRole('combobox', { name: 'Time' }), { target: { value: 'custom' } });
    fireEvent.change(screen.getByLabelText('From'), { target: { value: '2026-11-21T08:30' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-11-20T09:45' } });
    expect(screen.getByText('“From” must come before “To”.')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Set time' }).disabled).toBe(true);
  });
});

describe('rows: severity colours, the detector first, thumbnails', () => {
  const loaded = ['debug', 'info', 'warning', 'error', 'critical'].map((severity, i) =>
    event({
      id: idOf(i),
      occurred_at: `2026-11-25T0${i}:00:00.000Z`,
      severity,
      detector: `det.${severity}`,
    }),
  );

  it('each severity its own class, on loaded rows (the name) and live ones (the number)', async () => {
    const live = {
      id: idOf(9),
      occurred_at: '2026-11-25T11:00:00.000Z',
      org_id: loaded[0]!.org_id,
      camera_id: null,
      detector: 'det.live',
      category: 'system',
      severity: 4,
    };
    openConsole(
      '/feed?severity=debug',
      'user',
      cameras,
      answer('get', '/api/v1/events', { rows: loaded, next_ts: null, next_id: null, stream_cursor: 'g:42' }),
      stream(live),
    );
    await waitFor(() => expect(document.querySelector(`[data-event="${idOf(9)}"]`)).not.toBeNull());
    const classOf = (i: number) =>
      [...document.querySelector(`[data-event="${idOf(i)}"]`)!.classList].filter((c) => c.startsWith('sev-'));
    expect([0, 1, 2, 3, 4].map(classOf)).toEqual([['sev-0'], ['sev-1'], ['sev-2'], ['sev-3'], ['sev-4']]);
    expect(classOf(9)).toEqual(['sev-4']);
    expect(document.querySelector(`[data-event="${idOf(9)}"] .sev`)!.textContent).toBe('critical');
    // The detector is the row's first text, before its severity and time.
    const row = document.querySelector(`[data-event="${idOf(2)}"]`)!;
    expect([...row.children].map((c) => c.className)).toEqual(['thumb', 'what', 'sev', '', 'where', 'flags']);
    expect(row.querySelector('.what')!.textContent).toBe('det.warning');
  });

  it('a thumbnail for an image attachment only, fetched with the session', async () => {
    const image = '0190c0de-0000-7000-8000-00000000aa01',
      pdf = '0190c0de-0000-7000-8000-00000000aa02';
    const asked: Array<{ ref: string; auth: string | null }> = [];
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xd9]);
    openConsole(
      '/feed',
      'user',
      cameras,
      answer('get', '/api/v1/events', {
        rows: [
          event({ id: idOf(1), attachments: [{ ref: image, content_type: 'image/jpeg', size: 2048 }] }),
          event({
            id: idOf(2),
            occurred_at: '2026-11-25T09:00:00.000Z',
            attachments: [{ ref: pdf, content_type: 'application/pdf', size: 4096 }],
          }),
          event({ id: idOf(3), occurred_at: '2026-11-25T08:00:00.000Z' }),
        ],
        next_ts: null,
        next_id: null,
        stream_cursor: 'g:42',
      }),
      stream(),
      http.get('/api/v1/attachments/:ref/preview', ({ request, params }) => {
        asked.push({ ref: String(params.ref), auth: request.headers.get('authorization') });
        return new HttpResponse(jpeg, { headers: { 'content-type': 'image/jpeg' } });
      }),
    );
    await waitFor(() => expect(document.querySelector(`[data-event="${idOf(1)}"] .thumb img`)).not.toBeNull());
    expect(document.querySelector(`[data-event="${idOf(1)}"] .thumb img`)!.getAttribute('src')).toMatch(/^blob:/);
    expect(document.querySelector(`[data-event="${idOf(2)}"] .thumb img`)).toBeNull();
    expect(document.querySelector(`[data-event="${idOf(3)}"] .thumb img`)).toBeNull();
    expect(asked).toEqual([{ ref: image, auth: 'Bearer session-of-user' }]);
  });
});

describe("the card's Newer and Older", () => {
  const card = answer('get', '/api/v1/events/{id}', {
    event: event(),
    template: null,
    rendered: { title: null, details: [{ label: 'Plate', value: 'AB-123-CD' }] },
  });

  it('Newer is disabled on the newest event of the view; Older goes to the older one with the view kept', async () => {
    const older = idOf(7);
    const { router } = openConsole(
      `/events/${EVENT}?severity=warning`,
      'user',
      // Before the card's `/events/:id`, which would answer for `navigate` too.
      http.get('/api/v1/events/navigate', ({ request }) => {
        const q = new URL(request.url).searchParams;
        expect(q.get('severity')).toBe('warning');
        return ok({ event: q.get('direction') === 'previous' ? null : event({ id: older }) });
      }),
      card,
    );
    const newer = await screen.findByRole<HTMLButtonElement>('button', { name: 'Newer' });
    const olderButton = screen.getByRole<HTMLButtonElement>('button', { name: 'Older' });
    await waitFor(() => expect(olderButton.disabled).toBe(false));
    expect(newer.disabled).toBe(true);
    expect(newer.title).toBe('No newer event in this view');
    fireEvent.click(olderButton);
    await waitFor(() => expect(router.state.location.pathname).toBe(`/events/${older}`));
    expect(router.state.location.search).toBe('?severity=warning');
  });
});
