// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor } from '@testing-library/react';
import { answer, http, mockThePlane, openConsole, plane, screen } from './console.harness.js';
import { CAMERA, camera, event } from './fixtures.js';
import { localInputOf, wallClock } from '../../../web/src/lib/review-time.js';

// Issue 23, review on the wall clock: the camera page's recording player says the moment as the
// wall clock with its zone (the user's chosen zone), never an offset; speeds; zoom buttons; the
// hover thumbnail of the node; a date to jump to; ?t= opens at a moment; "Play from here" of an
// event leads there 10 s before it.
mockThePlane();

const NODE = 'http://node.test/hls/gate-north';
const BERLIN = { zone: 'Europe/Berlin', clock: '24h' } as const;

function playlist(fromMs: number): string {
  const seg = (startMs: number) => [`#EXTINF:2.000,`, `dvr-${startMs}.ts?t=ticket-1`];
  return [
    '#EXTM3U',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    ...seg(fromMs),
    ...seg(fromMs + 2000),
    ...seg(fromMs + 600_000),
    '#EXT-X-ENDLIST',
    '',
  ].join('\n');
}

/** The same recording as the node's recorded-<from>-<secs>.json says it: two ranges. */
const recordedRanges = (fromMs: number) => [
  { from_ms: fromMs, to_ms: fromMs + 4000 },
  { from_ms: fromMs + 600_000, to_ms: fromMs + 602_000 },
];

/** The camera page with a recording 40 and 30 minutes ago, in Berlin's zone. */
function open(path: string, recordedMs: number) {
  openConsole(
    path,
    'user',
    answer('get', '/api/v1/me/preferences', { timezone: 'Europe/Berlin', clock: '24h', views: [] }),
    answer('get', '/api/v1/cameras/{id}', camera({ recording: { retention: '7d' } })),
    http.post('/api/v1/cameras/:id/play', async ({ request }) => {
      const body = (await request.json()) as { from: number; duration: number };
      return Response.json({
        url: `${NODE}/index-${body.from}-${body.duration}.m3u8`,
        token: 'viewer-token',
        expires_at: '2030-01-01T00:00:00.000Z',
      });
    }),
    answer('get', '/api/v1/events', { rows: [], next_ts: null, next_id: null, stream_cursor: 'g:1' }),
  );
  plane.use(
    http.get(`${NODE}/:file`, ({ params }) =>
      String(params.file).startsWith('recorded-')
        ? Response.json({ ranges: recordedRanges(recordedMs) })
        : new Response(playlist(recordedMs)),
    ),
  );
}

const recordedAgo = () => Math.floor(Date.now() / 1000 - 2400) * 1000;

describe('the camera page reviews its recording on the wall clock', () => {
  it('the player shows the newest moment as date, time and zone; no native offset controls', async () => {
    const recordedMs = recordedAgo();
    open(`/cameras/${CAMERA}`, recordedMs);
    const clock = await screen.findByTestId('wall-clock');
    await waitFor(() => expect(clock.textContent).toBe(wallClock(recordedMs + 600_000, BERLIN)));
    expect(clock.textContent).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d GMT\+1$/);
    const video = document.querySelector('.review video') as HTMLVideoElement;
    expect(video.controls).toBe(false);
  });

  it('speeds 0.5x to 8x set the playback rate', async () => {
    open(`/cameras/${CAMERA}`, recordedAgo());
    const two = await screen.findByRole('button', { name: '2x' });
    await waitFor(() => expect(document.querySelector('.review video')).not.toBeNull());
    expect(screen.getAllByRole('button', { name: /^[0-9.]+x$/ }).map((b) => b.textContent)).toEqual([
      '0.5x',
      '1x',
      '2x',
      '4x',
      '8x',
    ]);
    fireEvent.click(two);
    expect(two.getAttribute('aria-pressed')).toBe('true');
    expect((document.querySelector('.review video') as HTMLVideoElement).playbackRate).toBe(2);
    fireEvent.click(screen.getByRole('button', { name: '8x' }));
    expect((document.querySelector('.review video') as HTMLVideoElement).playbackRate).toBe(8);
  });

  it('the zoom buttons change the span the bar shows, 5 minutes to 7 days', async () => {
    open(`/cameras/${CAMERA}`, recordedAgo());
    const span = await screen.findByTestId('view-span');
    const slider = screen.getByRole('slider', { name: 'Recording position' });
    const shown = () => Number(slider.getAttribute('aria-valuemax')) - Number(slider.getAttribute('aria-valuemin'));
    expect(span.textContent).toBe('60 min');
    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(span.textContent).toBe('15 min');
    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(span.textContent).toBe('5 min');
    expect(shown()).toBe(300);
    for (let i = 0; i < 10; i++) fireEvent.click(screen.getByRole('button', { name: 'Zoom out' }));
    expect(span.textContent).toBe('7 days');
  });

  it('a drag pans the window without seeking; two pointers pinch the span; a click seeks', async () => {
    open(`/cameras/${CAMERA}`, recordedAgo());
    const slider = await screen.findByRole('slider', { name: 'Recording position' });
    await waitFor(() => expect(document.querySelector('.review-bar .range')).not.toBeNull());
    const bar = screen.getByTestId('review-bar');
    const min = () => Number(slider.getAttribute('aria-valuemin'));
    const at = () => Number(slider.getAttribute('aria-valuenow'));
    const before = { min: min(), at: at() };
    // 200 px of the 800 px bar to the right: a quarter of the hour earlier.
    fireEvent.pointerDown(bar, { pointerId: 1, clientX: 300 });
    fireEvent.pointerMove(bar, { pointerId: 1, clientX: 400 });
    fireEvent.pointerMove(bar, { pointerId: 1, clientX: 500 });
    fireEvent.pointerUp(bar, { pointerId: 1, clientX: 500 });
    fireEvent.click(bar, { clientX: 500 });
    expect(before.min - min()).toBe(900);
    expect(at()).toBe(before.at);
    // Two fingers 100 px apart moving to 400 px apart: the span is a quarter.
    fireEvent.pointerDown(bar, { pointerId: 2, clientX: 350 });
    fireEvent.pointerDown(bar, { pointerId: 3, clientX: 450 });
    fireEvent.pointerMove(bar, { pointerId: 2, clientX: 200 });
    fireEvent.pointerMove(bar, { pointerId: 3, clientX: 600 });
    fireEvent.pointerUp(bar, { pointerId: 2 });
    fireEvent.pointerUp(bar, { pointerId: 3 });
    expect(Number(bar.dataset.spanMs)).toBe(15 * 60_000);
    fireEvent.click(bar, { clientX: 400 });
    // The click after a pinch is its end, not a seek; the next one seeks to the middle of the window.
    fireEvent.click(bar, { clientX: 400 });
    expect(at()).toBe(Math.floor((min() * 1000 + 7.5 * 60_000) / 1000));
  });

  it('hovering the bar shows the node thumbnail of that moment, on the range ticket', async () => {
    const recordedMs = recordedAgo();
    open(`/cameras/${CAMERA}`, recordedMs);
    const slider = await screen.findByRole('slider', { name: 'Recording position' });
    await waitFor(() => expect(document.querySelector('.review-bar .range')).not.toBeNull());
    const from = Number(slider.getAttribute('aria-valuemin')) * 1000;
    // The bar is measured as 800 px where there is no layout: a pixel is 4.5 s of the hour.
    const x = ((recordedMs + 1000 - from) / 3600_000) * 800;
    fireEvent.pointerMove(screen.getByTestId('review-bar'), { clientX: x });
    const img = await screen.findByRole('img', { name: /^Recording at / });
    // Fetched (the content policy opens XHR to the nodes, not images) and shown from a blob: URL.
    expect(img.getAttribute('src')).toMatch(/^blob:/);
    expect(img.dataset.src).toMatch(new RegExp(`^${NODE}/thumb-\\d+\\.jpg\\?t=ticket-1$`));
    const secs = Number(/thumb-(\d+)/.exec(img.dataset.src!)![1]);
    // Rounded down to the hour view's step (about 4 px, 30 s) so a hover over a stretch asks one
    // picture, unless that leaves the recording (a range of 4 s here): then the second itself.
    expect(secs * 1000).toBeGreaterThanOrEqual(recordedMs);
    expect(secs * 1000).toBeLessThan(recordedMs + 4000);
  });

  it('?t= opens the recording at that moment; the date picker jumps in the chosen zone', async () => {
    const recordedMs = recordedAgo();
    open(`/cameras/${CAMERA}?t=${recordedMs / 1000 + 1}`, recordedMs);
    const slider = await screen.findByRole('slider', { name: 'Recording position' });
    await waitFor(() => expect(Number(slider.getAttribute('aria-valuenow'))).toBe(recordedMs / 1000 + 1));
    expect(screen.getByTestId('wall-clock').textContent).toBe(wallClock(recordedMs + 1000, BERLIN));

    const picker = screen.getByLabelText(/Go to/);
    fireEvent.change(picker, { target: { value: localInputOf(recordedMs + 600_000, BERLIN) } });
    fireEvent.click(screen.getByRole('button', { name: 'Go' }));
    await waitFor(() => expect(Number(slider.getAttribute('aria-valuenow'))).toBe(recordedMs / 1000 + 600));
  });
});

describe('"Play from here" of an event', () => {
  it('opens the camera page at 10 s before the event', async () => {
    const occurred = '2026-11-25T10:00:00.000Z';
    open(`/events/0190c0de-0000-7000-8000-0000000000e1`, recordedAgo());
    plane.use(
      answer('get', '/api/v1/events/{id}', {
        event: event({ occurred_at: occurred }),
        template: null,
        rendered: { title: null, details: [] },
      }),
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Play from here' }));
    await waitFor(() =>
      expect(`${location.pathname}${location.search}`).toBe(`/cameras/${CAMERA}?t=${Date.parse(occurred) / 1000 - 10}`),
    );
    const slider = await screen.findByRole('slider', { name: 'Recording position' });
    expect(Number(slider.getAttribute('aria-valuemin'))).toBeLessThan(Date.parse(occurred) / 1000 - 10);
    expect(Number(slider.getAttribute('aria-valuemax'))).toBeGreaterThan(Date.parse(occurred) / 1000 - 10);
  });
});
