import { beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApiError } from '../../../../src/common/api-error.js';
import { ffmpegPath, mediaToolEnv } from '../../../../src/common/media-tools.js';
import { DvrStore } from '../../../../src/node/media/dvr/dvr.store.js';
import { Thumbnails } from '../../../../src/node/media/playback/thumbnail.js';
import { tempDir } from '../../helpers/node-process.js';

/**
 * The thumbnail cache and its bounds on real recorded segments (H.264 in MPEG-TS, as the node
 * records them, written by ffmpeg into a recording folder): one ffmpeg run per stream, segment and
 * second, the LRU bound, at most `concurrency` runs at once and a bounded line of waiting requests.
 */
const T0 = 1_795_000_000_000;
let store: DvrStore;

async function segment(dir: string, startMs: number, secs: number): Promise<void> {
  const day = new Date(startMs).toISOString().slice(0, 10);
  await mkdir(join(dir, 'cam', day), { recursive: true });
  await promisify(execFile)(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=320x180:rate=10:duration=${secs}`,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '10',
      '-pix_fmt',
      'yuv420p',
      '-f',
      'mpegts',
      '-y',
      join(dir, 'cam', day, `${startMs}-${secs * 1000}.ts`),
    ],
    { timeout: 20_000, env: mediaToolEnv(ffmpegPath()) },
  );
}

const thumbs = (o: { maxEntries?: number; concurrency?: number; maxWaiting?: number } = {}) =>
  new Thumbnails({ ffmpeg: ffmpegPath(), store: (s) => (s === 'cam' ? store : undefined), ...o });

beforeAll(async () => {
  const dir = await tempDir('argus-thumb-');
  await segment(dir, T0, 4);
  await segment(dir, T0 + 4000, 4);
  // A gap of a minute, then one more.
  await segment(dir, T0 + 68_000, 4);
  store = new DvrStore(dir, 'cam');
  await store.load();
  expect(store.count).toBe(3);
});

describe('Thumbnails', () => {
  it('a moment in a segment: one JPEG; the same second again comes from the cache', async () => {
    const t = thumbs();
    const a = await t.jpeg('cam', T0 / 1000 + 5);
    expect([...a.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect(t.runs).toBe(1);
    expect((await t.jpeg('cam', T0 / 1000 + 5)).equals(a)).toBe(true);
    expect(t.runs).toBe(1);
    // Another second is another picture.
    await t.jpeg('cam', T0 / 1000 + 6);
    expect(t.runs).toBe(2);
  });

  it('a moment in a gap, before or after the recording, or of a stream without one: 404 no_recording', async () => {
    const t = thumbs();
    for (const at of [T0 / 1000 + 30, T0 / 1000 - 1, T0 / 1000 + 72]) {
      const err = await t.jpeg('cam', at).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('no_recording');
    }
    expect(((await t.jpeg('none', T0 / 1000).catch((e: unknown) => e)) as ApiError).status).toBe(404);
    expect(t.runs).toBe(0);
  });

  it('keeps at most maxEntries pictures, dropping the least recently used', async () => {
    const t = thumbs({ maxEntries: 2 });
    await t.jpeg('cam', T0 / 1000);
    await t.jpeg('cam', T0 / 1000 + 1);
    await t.jpeg('cam', T0 / 1000); // used again: now the newest
    await t.jpeg('cam', T0 / 1000 + 2); // drops +1
    expect(t.size).toBe(2);
    expect(t.runs).toBe(3);
    await t.jpeg('cam', T0 / 1000);
    expect(t.runs).toBe(3);
    await t.jpeg('cam', T0 / 1000 + 1);
    expect(t.runs).toBe(4);
  });

  it('a hover sweeping 20 moments runs at most `concurrency` ffmpegs and refuses past the waiting line', async () => {
    const t = thumbs({ concurrency: 2, maxWaiting: 4 });
    const asked = Array.from({ length: 20 }, (_, i) =>
      t.jpeg('cam', T0 / 1000 + (i % 8)).then(
        () => 'ok',
        (e: unknown) => (e instanceof ApiError ? `${e.status}` : 'failed'),
      ),
    );
    // Right after the sweep: two ffmpegs running, four requests in line.
    const inside = t as unknown as { running: number; waiting: unknown[] };
    expect([inside.running, inside.waiting.length]).toEqual([2, 4]);
    const results = await Promise.all(asked);
    expect([inside.running, inside.waiting.length]).toEqual([0, 0]);
    // 8 distinct seconds: 2 run, 4 wait, 2 are refused (and so are their repeats, 4 in all); the
    // other repeats share the picture in the cache.
    expect(results.filter((r) => r === '429')).toHaveLength(4);
    expect(results.filter((r) => r === 'ok')).toHaveLength(16);
    expect(t.runs).toBe(6);
  });
});
