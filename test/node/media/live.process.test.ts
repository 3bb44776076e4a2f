import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { call, startNode, tempDir, type RunningNode } from '../helpers/node-process.js';
import {
  MEDIA_ENV,
  TESTSRC,
  alive,
  childPids,
  ffprobe,
  makeClip,
  stopAndReap,
  uris,
  waitFor,
  waitState,
} from './media-helpers.js';

/**
 * Live HLS from real ffmpeg: a testsrc stream (encoded), a looping file (copied), an on-demand
 * stream that starts at its first viewer and parks after the last. No auth_backend: media is open.
 */
let node: RunningNode;
let clipUrl: string;

beforeAll(async () => {
  const dir = await tempDir();
  const clip = join(dir, 'clip.mp4');
  await makeClip(clip, 2);
  clipUrl = pathToFileURL(clip).toString();
  const mjpeg = join(dir, 'mjpeg.avi');
  await makeClip(mjpeg, 2, 'mjpeg');
  node = await startNode(
    `stream cam1 { input "${TESTSRC}"; }\nstream clip { input "${clipUrl}"; }\nstream lazy { input "${TESTSRC}"; on_demand; }\n` +
      `stream mjpeg { input "${pathToFileURL(mjpeg)}"; }\n`,
    { dir, env: MEDIA_ENV },
  );
});
afterAll(async () => {
  expect(await stopAndReap(node)).toEqual([]);
});

describe('a testsrc stream', () => {
  it('goes live and reports bitrate, frame rate and resolution', async () => {
    const row = await waitState(node, 'cam1', 'live');
    expect(row).toMatchObject({
      input: TESTSRC,
      resolution: '160x90',
      codec: 'h264',
      video: 'encode',
      last_error: null,
    });
    expect(typeof row.since_ms).toBe('number');
    const later = await waitFor('fps and bitrate', async () => {
      const r = (await call(node.url, 'GET', '/api/v1/streams')).json.rows.find(
        (x: { name: string }) => x.name === 'cam1',
      );
      return r.fps > 0 && r.bitrate_kbps > 0 ? r : null;
    });
    // A 10 fps source; on a loaded machine ffmpeg stalls and catches up in bursts, so the figure
    // over a short window may be far from 10 either way (seen: outside 5..25 under CI load).
    // The rate itself is the benches' to judge; here: a figure, and no absurd one.
    expect(later.fps).toBeGreaterThan(0);
    expect(later.fps).toBeLessThan(250);
  });

  it('a client downloads the playlist and segments, and ffprobe reads them', async () => {
    const entry = await call(node.url, 'GET', '/cam1/index.m3u8');
    expect(entry.status).toBe(200);
    expect(entry.headers.get('content-type')).toBe('application/vnd.apple.mpegurl');
    expect(entry.text).toMatch(/^#EXTM3U\n/);
    expect(entry.text).toMatch(/#EXT-X-STREAM-INF:BANDWIDTH=\d+,RESOLUTION=160x90/);
    const [variant] = uris(entry.text);
    expect(variant).toBe('live.m3u8');
    const media = await call(node.url, 'GET', `/cam1/${variant}`);
    expect(media.status).toBe(200);
    expect(media.text).toContain('#EXT-X-TARGETDURATION:1');
    expect(media.text).toContain('#EXT-X-PROGRAM-DATE-TIME:');
    expect(media.text).not.toContain('#EXT-X-ENDLIST');
    const segs = uris(media.text);
    expect(segs.length).toBeGreaterThan(0);
    const seg = await fetch(`${node.url}/cam1/${segs[segs.length - 1]}`);
    expect(seg.status).toBe(200);
    expect(seg.headers.get('content-type')).toBe('video/mp2t');
    const bytes = new Uint8Array(await seg.arrayBuffer());
    expect(bytes[0]).toBe(0x47); // MPEG-TS sync byte
    expect(await ffprobe(`${node.url}/cam1/${segs[segs.length - 1]}`)).toMatchObject({
      codec_name: 'h264',
      width: '160',
      height: '90',
    });
    // ffmpeg as an HLS client follows the multivariant playlist like hls.js and Safari do.
    expect(await ffprobe(`${node.url}/cam1/index.m3u8`, 'stream=codec_name,width,height')).toMatchObject({
      codec_name: 'h264',
      width: '160',
    });
  });

  it('preview.jpg is the latest picture', async () => {
    const r = await fetch(`${node.url}/cam1/preview.jpg`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('image/jpeg');
    const b = new Uint8Array(await r.arrayBuffer());
    expect([b[0], b[1]]).toEqual([0xff, 0xd8]);
    expect(await ffprobe(`${node.url}/cam1/preview.jpg`, 'stream=codec_name,width,height')).toMatchObject({
      codec_name: 'mjpeg',
      width: '160',
      height: '90',
    });
  });

  it('embed.html plays with the vendored hls.js, served by the node', async () => {
    const page = await call(node.url, 'GET', '/cam1/embed.html');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script src="/_player/hls.min.js"></script>');
    expect(page.text).toContain("'index.m3u8'");
    expect(page.text).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
    const js = await call(node.url, 'GET', '/_player/hls.min.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.text.length).toBeGreaterThan(100_000);
  });

  it('unknown media names are 404, unknown streams 404 stream_not_found', async () => {
    expect((await call(node.url, 'GET', '/cam1/r1-..%2F..%2Fx.ts')).status).toBe(404);
    expect((await call(node.url, 'GET', '/cam1/other.m3u8')).status).toBe(404);
    expect((await call(node.url, 'GET', '/nope/index.m3u8')).json.error).toBe('stream_not_found');
  });
});

describe('a file:// source', () => {
  it('is copied, not encoded, and loops past the end of the clip', async () => {
    const row = await waitState(node, 'clip', 'live');
    expect(row).toMatchObject({ video: 'copy', codec: 'h264', resolution: '160x90' });
    // The clip is 2 s long; a live edge 4 s in proves it loops.
    const seq = await waitFor(
      'media sequence past the clip',
      async () => {
        const pl = (await call(node.url, 'GET', '/clip/live.m3u8')).text;
        const n = uris(pl).length + Number(/#EXT-X-MEDIA-SEQUENCE:(\d+)/.exec(pl)?.[1] ?? 0);
        return n >= 5 ? n : null;
      },
      20_000,
    );
    expect(seq).toBeGreaterThanOrEqual(5);
    const segs = uris((await call(node.url, 'GET', '/clip/live.m3u8')).text);
    expect(await ffprobe(`${node.url}/clip/${segs[segs.length - 1]}`)).toMatchObject({
      codec_name: 'h264',
      width: '160',
    });
  });
});

describe('a source whose codec HLS cannot carry', () => {
  it('is encoded to H.264 instead of copied', async () => {
    const row = await waitState(node, 'mjpeg', 'live');
    expect(row).toMatchObject({ video: 'encode', codec: 'h264', resolution: '160x90' });
    const segs = uris((await call(node.url, 'GET', '/mjpeg/live.m3u8')).text);
    expect(await ffprobe(`${node.url}/mjpeg/${segs[segs.length - 1]}`)).toMatchObject({ codec_name: 'h264' });
    expect(
      node.logs.some(
        (l) => l.msg === 'source codec cannot be copied into HLS; encoding instead' && l.stream === 'mjpeg',
      ),
    ).toBe(true);
  });
});

describe('an on-demand stream', () => {
  it('is parked without viewers, starts at the first viewer and parks again after the last left', async () => {
    expect((await waitState(node, 'lazy', 'parked')).state).toBe('parked');
    const t0 = Date.now();
    const entry = await call(node.url, 'GET', '/lazy/index.m3u8');
    expect(entry.status).toBe(200);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect((await call(node.url, 'GET', '/lazy/live.m3u8')).text).toContain('#EXTINF');
    expect(
      (await call(node.url, 'GET', '/api/v1/streams')).json.rows.find((x: { name: string }) => x.name === 'lazy').state,
    ).toMatch(/^(live|starting)$/);
    // The viewer stops fetching: after the idle time (3 s in tests) the stream parks.
    await waitState(node, 'lazy', 'parked', 15_000);
  });
});

describe('streams through the API', () => {
  it('PUT starts a new ingest, DELETE stops its ffmpeg', async () => {
    const before = childPids(node.proc.pid!);
    const put = await call(node.url, 'PUT', '/api/v1/streams/api1', { body: { input: TESTSRC } });
    expect(put.status).toBe(201);
    await waitState(node, 'api1', 'live');
    const added = childPids(node.proc.pid!).filter((p) => !before.includes(p));
    expect(added.length).toBeGreaterThanOrEqual(1);
    const history = (await call(node.url, 'GET', '/api/v1/config/history')).json;
    expect(history[history.length - 1]).toMatchObject({ via: 'api' });
    // A new input is a new ingest.
    expect(
      (
        await call(node.url, 'PUT', '/api/v1/streams/api1', {
          body: { input: 'testsrc://t?size=192x108&rate=10&bitrate=100' },
        })
      ).status,
    ).toBe(200);
    await waitFor('api1 at its new size', async () => {
      const r = (await call(node.url, 'GET', '/api/v1/streams')).json.rows.find(
        (x: { name: string }) => x.name === 'api1',
      );
      return r?.state === 'live' && r.resolution === '192x108';
    });
    await waitFor('the first ffmpeg of api1 gone', async () => added.every((p) => !alive(p)), 10_000);
    const replaced = childPids(node.proc.pid!).filter((p) => !before.includes(p));
    expect((await call(node.url, 'DELETE', '/api/v1/streams/api1')).status).toBe(200);
    await waitFor('ffmpeg of api1 gone', async () => replaced.every((p) => !alive(p)), 10_000);
    expect((await call(node.url, 'GET', '/api1/index.m3u8')).status).toBe(404);
  });
});
