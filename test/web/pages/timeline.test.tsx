// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { fireEvent, waitFor } from '@testing-library/react';
import { keyMove } from '../../../web/src/components/timeline.js';
import { answer, http, mockThePlane, openConsole, plane, screen } from './console.harness.js';
import { CAMERA, camera, event } from './fixtures.js';
import { wallClock } from '../../../web/src/lib/review-time.js';
import { BROWSER_TIME } from '../../../web/src/lib/text.js';

// Issue 22, accessible: a camera's recording timeline is a slider the keyboard moves (focusable,
// arrows, Shift and Page keys, Home and End), and every event marker is a button with a name,
// beside the slider rather than in it (a control holding controls is announced as one).
mockThePlane();

const NODE_PLAYLIST = 'http://node.test/hls/gate-north/index-1-3600.m3u8';

/** A playback playlist of two ranges of the last hour, as the node writes it. */
function playlist(fromMs: number): string {
  const seg = (startMs: number) => [`#EXTINF:2.000,`, `dvr-${startMs}.ts?t=x`];
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

describe("a camera's recording timeline (/cameras/:id)", () => {
  it('is focusable, moves with the arrow keys and names each marker', async () => {
    const end = Math.floor(Date.now() / 1000);
    const recordedMs = (end - 1800) * 1000 - 900_000;
    const events = [
      event({ id: '0190c0de-0000-7000-8000-0000000000e1', occurred_at: new Date(recordedMs + 1000).toISOString() }),
      event({
        id: '0190c0de-0000-7000-8000-0000000000e2',
        detector: 'motion.zone',
        occurred_at: new Date(recordedMs + 600_500).toISOString(),
      }),
    ];
    openConsole(
      `/cameras/${CAMERA}`,
      'user',
      answer('get', '/api/v1/cameras/{id}', camera({ recording: { retention: '7d' } })),
      answer('post', '/api/v1/cameras/{id}/play', {
        url: NODE_PLAYLIST,
        token: 'viewer-token',
        expires_at: '2030-01-01T00:00:00.000Z',
      }),
      answer('get', '/api/v1/events', { rows: events, next_ts: null, next_id: null, stream_cursor: 'g:1' }),
    );
    plane.use(
      http.get(NODE_PLAYLIST, () => new Response(playlist(recordedMs))),
      http.get(NODE_PLAYLIST.replace('index-', 'recorded-').replace('.m3u8', '.json'), () =>
        Response.json({
          ranges: [
            { from_ms: recordedMs, to_ms: recordedMs + 4000 },
            { from_ms: recordedMs + 600_000, to_ms: recordedMs + 602_000 },
          ],
        }),
      ),
    );

    const slider = await screen.findByRole('slider', { name: 'Recording position' });
    expect(slider.tabIndex).toBe(0);
    slider.focus();
    expect(document.activeElement).toBe(slider);
    const at = () => Number(slider.getAttribute('aria-valuenow'));
    const from = Number(slider.getAttribute('aria-valuemin'));
    const max = Number(slider.getAttribute('aria-valuemax'));
    // The view opens on the last hour, the playhead at the newest recorded moment (issue 23), not the oldest.
    expect(max - from).toBe(3600);
    const newest = recordedMs + 600_000;
    await waitFor(() => expect(at()).toBe(newest / 1000));
    expect(slider.getAttribute('aria-valuetext')).toBe(wallClock(newest, BROWSER_TIME));

    fireEvent.keyDown(slider, { key: 'ArrowRight' });
    expect(at()).toBe(newest / 1000 + 10);
    fireEvent.keyDown(slider, { key: 'ArrowLeft' });
    fireEvent.keyDown(slider, { key: 'ArrowLeft' });
    expect(at()).toBe(newest / 1000 - 10);
    fireEvent.keyDown(slider, { key: 'ArrowRight', shiftKey: true });
    expect(at()).toBe(newest / 1000 + 290);
    fireEvent.keyDown(slider, { key: 'End' });
    expect(at()).toBe(max);
    fireEvent.keyDown(slider, { key: 'ArrowUp' });
    expect(at()).toBe(max);
    fireEvent.keyDown(slider, { key: 'Home' });
    expect(at()).toBe(from);
    fireEvent.keyDown(slider, { key: 'PageDown' });
    expect(at()).toBe(from);
    fireEvent.keyDown(slider, { key: 'PageUp' });
    expect(at()).toBe(from + 300);
    // A key the slider does not use leaves it where it is.
    fireEvent.keyDown(slider, { key: 'a' });
    expect(at()).toBe(from + 300);

    const markers = await screen.findAllByRole('button', { name: /^Play from / });
    expect(markers.map((m) => m.getAttribute('aria-label'))).toEqual([
      `Play from lpr.plate at ${wallClock(recordedMs + 1000, BROWSER_TIME)}`,
      `Play from motion.zone at ${wallClock(recordedMs + 600_500, BROWSER_TIME)}`,
    ]);
    expect(slider.querySelector('button')).toBeNull();
    // A marker plays from 10 s before its event.
    fireEvent.click(markers[1]!);
    expect(at()).toBe(Math.floor((recordedMs + 600_500 - 10_000) / 1000));
  });
});

describe('keyMove', () => {
  const from = 1_000_000;
  const end = from + 3_600_000;
  it.each([
    ['ArrowRight', false, from + 10_000],
    ['ArrowUp', false, from + 10_000],
    ['ArrowRight', true, from + 300_000],
    ['PageUp', false, from + 300_000],
    ['End', false, end],
    ['Home', false, from],
    ['ArrowLeft', false, from],
  ] as const)('%s (shift %s) from the start: %i', (key, shift, to) => {
    expect(keyMove(key, shift, from, from, end, 3600)).toBe(to);
  });
  it('other keys: null', () => {
    expect(keyMove('Enter', false, from, from, end, 3600)).toBeNull();
    expect(keyMove('Tab', false, from, from, end, 3600)).toBeNull();
  });
});
