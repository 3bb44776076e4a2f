import { describe, expect, it } from 'vitest';
import { joinVodStreamPath } from '../../../src/node/media/stream-url.js';

describe('vod stream paths before routing', () => {
  it.each([
    ['/vod/cam1/2026-01-01/index.m3u8?token=a/b', '/vod%2Fcam1%2F2026-01-01/index.m3u8?token=a/b'],
    ['/vod/x/live.m3u8', '/vod%2Fx/live.m3u8'],
    ['/vod/index.m3u8', '/vod/index.m3u8'],
    ['/vod/x/', '/vod%2Fx/'],
    ['/cam1/index.m3u8', '/cam1/index.m3u8'],
    ['/api/v1/streams', '/api/v1/streams'],
    ['/vodka/x/index.m3u8', '/vodka/x/index.m3u8'],
  ])('%s -> %s', (url, expected) => {
    expect(joinVodStreamPath(url)).toBe(expected);
  });
});
