import { describe, expect, it } from 'vitest';
import { momentOf, positionOf, rangesOf, segmentsOf } from '../../web/src/lib/recording.js';

// A playback playlist as the node writes it (src/node/media/hls/playlists.ts): a gap of a minute after the second segment.
const T = 1_764_000_000_000;
const PLAYLIST = [
  '#EXTM3U',
  '#EXT-X-VERSION:3',
  '#EXT-X-TARGETDURATION:2',
  '#EXT-X-PLAYLIST-TYPE:VOD',
  '#EXTINF:2.000,',
  `dvr-${T}.ts?t=abc`,
  '#EXTINF:2.000,',
  `dvr-${T + 2000}.ts?t=abc`,
  '#EXTINF:1.500,',
  `dvr-${T + 64_000}.ts?t=abc`,
  '#EXT-X-ENDLIST',
  '',
].join('\n');

describe('the recording read from a playback playlist', () => {
  const segs = segmentsOf(PLAYLIST);

  it('segments with their wall-clock start and their place in the playlist', () => {
    expect(segs).toEqual([
      { startMs: T, durationMs: 2000, offsetS: 0 },
      { startMs: T + 2000, durationMs: 2000, offsetS: 2 },
      { startMs: T + 64_000, durationMs: 1500, offsetS: 4 },
    ]);
    expect(segmentsOf('#EXTM3U\n')).toEqual([]);
  });

  it('touching segments merge into ranges; a gap starts a new one', () => {
    expect(rangesOf(segs)).toEqual([
      { fromMs: T, toMs: T + 4000 },
      { fromMs: T + 64_000, toMs: T + 65_500 },
    ]);
  });

  it('a moment maps to a playlist position and back; a moment in a gap plays the next recorded one', () => {
    expect(positionOf(segs, T + 3000)).toBe(3);
    expect(positionOf(segs, T + 30_000)).toBe(4);
    expect(positionOf(segs, T + 64_500)).toBe(4.5);
    expect(positionOf(segs, T + 90_000)).toBeNull();
    expect(momentOf(segs, 4.5)).toBe(T + 64_500);
    expect(momentOf(segs, 3)).toBe(T + 3000);
    expect(momentOf(segs, 10)).toBeNull();
  });
});
