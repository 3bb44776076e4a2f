/** The cameras and recordings the review page tests answer with (issue 23). */
import { http, HttpResponse } from 'msw';
import { camera } from './fixtures.js';

export const T0 = Date.parse('2026-11-26T10:00:00.000Z');

const id = (n: number) => `0190c0de-0000-7000-8000-00000000c0${String(n).padStart(2, '0')}`;
export const CAMERAS = [1, 2, 3, 4, 5].map((n) =>
  camera({ id: id(n), name: `Camera ${n}`, recording: { retention: '7d' } }),
);
export const UNRECORDED = camera({ id: id(9), name: 'Lobby', recording: null });

/** A playback playlist as the node writes it: `count` segments of 2 s from `fromMs`. */
export function playlist(fromMs: number, count: number): string {
  const lines = ['#EXTM3U', '#EXT-X-PLAYLIST-TYPE:VOD'];
  for (let i = 0; i < count; i++) lines.push('#EXTINF:2.000,', `dvr-${fromMs + i * 2000}.ts?t=x`);
  return [...lines, '#EXT-X-ENDLIST', ''].join('\n');
}

/**
 * Every camera's playback session on the node and its playlist: `recordedFrom` gives where each
 * camera's recording starts (10 minutes of it); a camera not in it has recorded nothing.
 */
export function recordings(recordedFrom: Record<string, number>) {
  return [
    http.post('/api/v1/cameras/:id/play', ({ params }) =>
      HttpResponse.json({
        url: `http://node.test/hls/${String(params.id)}/index.m3u8`,
        token: 'viewer-token',
        expires_at: '2030-01-01T00:00:00.000Z',
      }),
    ),
    http.get('http://node.test/hls/:id/index.m3u8', ({ params }) => {
      const from = recordedFrom[String(params.id)];
      return new HttpResponse(from === undefined ? playlist(0, 0) : playlist(from, 300));
    }),
  ];
}
