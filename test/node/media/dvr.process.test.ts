import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { call, startNode, tempDir, type RunningNode } from '../helpers/node-process.js';
import { MEDIA_ENV, TESTSRC, ffprobe, stopAndReap, uris, waitFor, waitState } from './media-helpers.js';

/**
 * Recording with real ffmpeg: segments land in the storage with an index, retention and
 * max_bytes remove old ones, a range plays back as HLS and exports as MP4, and finished
 * segments survive a restart.
 */
let dir: string;
let node: RunningNode | undefined;
const SMALL_MAX = 60_000;

function body(): string {
  return [
    `storage main ${join(dir, 'rec')};`,
    `storage tiny ${join(dir, 'tiny')} max_bytes ${SMALL_MAX};`,
    `stream cam1 { input "${TESTSRC}"; dvr main 1h; }`,
    `stream short { input "${TESTSRC}"; dvr main 4s; }`,
    `stream full { input "${TESTSRC}&bitrate=200"; dvr tiny 1h; }`,
    '',
  ].join('\n');
}

async function recorded(
  stream: string,
  storage = 'rec',
): Promise<Array<{ start: number; duration: number; bytes: number; file: string }>> {
  const text = await readFile(join(dir, storage, stream, 'index.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

beforeAll(async () => {
  dir = await tempDir();
  await mkdir(join(dir, 'rec'));
  await mkdir(join(dir, 'tiny'));
  node = await startNode(body(), { dir, env: MEDIA_ENV });
  await Promise.all(['cam1', 'short', 'full'].map((s) => waitState(node!, s, 'live')));
});
afterAll(async () => {
  expect(await stopAndReap(node)).toEqual([]);
});

describe('recording', () => {
  it('writes segments under the storage path with an index', async () => {
    const segs = await waitFor('5 recorded segments', async () => {
      const s = await recorded('cam1');
      return s.length >= 5 ? s : null;
    });
    const first = segs[0];
    expect(first.file).toMatch(/^\d{4}-\d{2}-\d{2}\/\d+-\d+\.ts$/);
    expect(first.duration).toBeGreaterThanOrEqual(900);
    expect((await stat(join(dir, 'rec', 'cam1', first.file))).size).toBe(first.bytes);
    expect(await ffprobe(join(dir, 'rec', 'cam1', first.file))).toMatchObject({ codec_name: 'h264', width: '160' });
    // Consecutive and in order.
    for (let i = 1; i < segs.length; i++) expect(segs[i].start).toBeGreaterThan(segs[i - 1].start);
  });

  it('storage telemetry reaches GET /api/v1/system', async () => {
    const sys = (await call(node!.url, 'GET', '/api/v1/system')).json;
    const main = sys.storages.find((s: { name: string }) => s.name === 'main');
    expect(main.identity_healthy).toBe(true);
    expect(main.total_bytes).toBeGreaterThan(0);
    expect(main.avail_bytes).toBeGreaterThan(0);
    expect(main.write_iops).toBeGreaterThan(0);
    expect(sys.storages.find((s: { name: string }) => s.name === 'tiny').total_bytes).toBe(SMALL_MAX);
    expect(sys.stream_counts).toMatchObject({ total: 3, live: 3 });
  });

  it('a recorded range plays back as HLS that ffprobe reads', async () => {
    const segs = await recorded('cam1');
    const from = Math.ceil(segs[1].start / 1000);
    const r = await call(node!.url, 'GET', `/cam1/index-${from}-3.m3u8`);
    expect(r.status).toBe(200);
    expect(r.text).toContain('#EXT-X-PLAYLIST-TYPE:VOD');
    expect(r.text).toContain('#EXT-X-ENDLIST');
    const list = uris(r.text);
    expect(list.length).toBeGreaterThanOrEqual(3);
    expect(list.length).toBeLessThanOrEqual(5);
    expect(list[0]).toMatch(/^dvr-\d+\.ts$/);
    const probe = await ffprobe(`${node!.url}/cam1/index-${from}-3.m3u8`);
    expect(probe).toMatchObject({ codec_name: 'h264', width: '160' });
    expect(Number(probe.duration)).toBeGreaterThan(2.5);
    expect((await call(node!.url, 'GET', '/cam1/index-1000000000-60.m3u8')).json.error).toBe('no_recording');
    expect((await call(node!.url, 'GET', `/cam1/index-${from}-0.m3u8`)).json.error).toBe('invalid_range');
  });

  it('exports a range as one MP4 file of that duration', async () => {
    const segs = await recorded('cam1');
    const from = Math.ceil(segs[1].start / 1000);
    const r = await fetch(`${node!.url}/cam1/export-${from}-3.mp4`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('video/mp4');
    expect(r.headers.get('content-disposition')).toBe(`attachment; filename="cam1-${from}-3.mp4"`);
    const file = join(dir, 'export.mp4');
    await writeFile(file, new Uint8Array(await r.arrayBuffer()));
    const probe = await ffprobe(file, 'stream=codec_name,width:format=duration,format_name');
    expect(probe.codec_name).toBe('h264');
    expect(probe.format_name).toContain('mp4');
    expect(Number(probe.duration)).toBeGreaterThan(2.5);
    expect(Number(probe.duration)).toBeLessThan(3.6);
    // The temporary file is gone once sent.
    await waitFor(
      'export temp file removed',
      async () => (await readdir(join(dir, 'data', 'tmp'))).filter((f) => f.endsWith('.mp4')).length === 0,
      5000,
    );
  });

  it('retention removes old segments', async () => {
    // `short` keeps 4 s; the sweep runs every 5 s. Its first segment must go, and what stays is young.
    const first = await waitFor('a first segment', async () => (await recorded('short'))[0]);
    await waitFor(
      'the first segment removed',
      async () => !(await recorded('short')).some((s) => s.start === first.start),
      20_000,
      500,
    );
    await expect(stat(join(dir, 'rec', 'short', first.file))).rejects.toThrow();
    const oldest = (await recorded('short'))[0];
    expect(Date.now() - (oldest.start + oldest.duration)).toBeLessThan(4000 + 5000 + 1500);
    const files = (await readdir(join(dir, 'rec', 'short'), { recursive: true })).filter((f) =>
      String(f).endsWith('.ts'),
    );
    expect(files.length).toBeLessThanOrEqual(12);
    const segs = await recorded('short');
    expect(files.length).toBe(segs.length);
  });

  it("the storage's max_bytes is enforced", async () => {
    await waitFor(
      'enough written to hit max_bytes',
      async () => {
        const segs = await recorded('full', 'tiny');
        return segs.length > 0 &&
          Date.now() - segs[0].start > 0 &&
          segs.reduce((a, s) => a + s.bytes, 0) > SMALL_MAX * 0.7
          ? true
          : null;
      },
      20_000,
    );
    await new Promise((r) => setTimeout(r, 3000));
    const segs = await recorded('full', 'tiny');
    expect(segs.reduce((a, s) => a + s.bytes, 0)).toBeLessThanOrEqual(SMALL_MAX);
    const files = (await readdir(join(dir, 'tiny', 'full'), { recursive: true })).filter((f) =>
      String(f).endsWith('.ts'),
    );
    expect(files.length).toBe(segs.length);
  });
});

describe('restart', () => {
  it('gives open recordings the stop grace, and finished segments survive and play back', async () => {
    const before = await recorded('cam1');
    const t0 = Date.now();
    const survivors = await stopAndReap(node);
    expect(survivors).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(6000);
    const logs = node!.logs.map((l) => l.msg);
    expect(logs).toContain('stopping: closing open recordings (up to 5 s)');
    expect(logs).not.toContain('recordings did not close within the stop grace');
    const after = await recorded('cam1');
    // The segment open at stop was finished and recorded too.
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    node = await startNode(null, { dir, env: MEDIA_ENV, port: node!.port });
    const from = Math.floor(after[0].start / 1000);
    const r = await call(node.url, 'GET', `/cam1/index-${from}-4.m3u8`);
    expect(r.status).toBe(200);
    expect(uris(r.text)[0]).toBe(`dvr-${after[0].start}.ts`);
    const seg = await fetch(`${node.url}/cam1/${uris(r.text)[0]}`);
    expect(seg.status).toBe(200);
    expect((await seg.arrayBuffer()).byteLength).toBe(after[0].bytes);
  });
});
