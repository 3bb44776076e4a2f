import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { call, startNode, tempDir, type RunningNode } from '../../helpers/node-process.js';
import { MEDIA_ENV, TESTSRC, ffprobe, stopAndReap, waitFor, waitState } from '../media-helpers.js';

/**
 * `/{stream}/thumb-<epoch secs>.jpg` on a node that records a real stream (issue 23): a small
 * JPEG of the recording at a moment, admitted as playback (a viewer token of the stream), 404
 * `no_recording` outside the recording, the same picture again from the cache.
 */
const SECRET = 'thumb-secret-0123456789';
let dir: string;
let node: RunningNode | undefined;

const token = (stream: string) =>
  new SignJWT({ typ: 'viewer', stream, protocols: ['hls'], sub: 'someone', subject_kind: 'user' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));

async function recorded(): Promise<Array<{ start: number; duration: number }>> {
  const text = await readFile(join(dir, 'rec', 'cam1', 'index.jsonl'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

async function thumb(at: number, stream = 'cam1', withToken = true) {
  const q = withToken ? `?token=${encodeURIComponent(await token(stream))}` : '';
  const r = await fetch(`${node!.url}/${stream}/thumb-${at}.jpg${q}`);
  return { status: r.status, type: r.headers.get('content-type'), body: Buffer.from(await r.arrayBuffer()) };
}

beforeAll(async () => {
  dir = await tempDir();
  await mkdir(join(dir, 'rec'));
  node = await startNode(
    [
      `auth_backend { hs256 ${SECRET}; }`,
      `storage main ${join(dir, 'rec')};`,
      `stream cam1 { input "${TESTSRC}"; dvr main 1h; }`,
      `stream other { input "${TESTSRC}"; }`,
      '',
    ].join('\n'),
    { dir, env: MEDIA_ENV },
  );
  await waitState(node, 'cam1', 'live');
  await waitFor('4 recorded segments', async () => (await recorded()).length >= 4, 30_000);
});
afterAll(async () => {
  expect(await stopAndReap(node)).toEqual([]);
});

describe('thumbnails of the recording', () => {
  it('a recorded moment answers a JPEG 160 px wide', async () => {
    const segs = await recorded();
    const at = Math.ceil(segs[1]!.start / 1000);
    const r = await thumb(at);
    expect(r.status).toBe(200);
    expect(r.type).toBe('image/jpeg');
    expect([...r.body.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    const file = join(dir, 'thumb.jpg');
    await writeFile(file, r.body);
    expect(await ffprobe(file, 'stream=codec_name,width,height')).toMatchObject({ codec_name: 'mjpeg', width: '160' });
    // Asked again: the same bytes (from the cache, whose runs the unit test counts).
    expect((await thumb(at)).body.equals(r.body)).toBe(true);
  });

  it('a moment outside the recording is 404 no_recording; a stream that does not record too', async () => {
    const segs = await recorded();
    const before = Math.floor(segs[0]!.start / 1000) - 3600;
    const r = await thumb(before);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body.toString()).error).toBe('no_recording');
    expect((await thumb(Math.ceil(segs[1]!.start / 1000), 'other')).status).toBe(404);
  });

  it('is admitted as playback: no token is 403, a token of another stream is 403', async () => {
    const at = Math.ceil((await recorded())[1]!.start / 1000);
    expect((await thumb(at, 'cam1', false)).status).toBe(403);
    const r = await fetch(`${node!.url}/cam1/thumb-${at}.jpg?token=${encodeURIComponent(await token('other'))}`);
    expect(r.status).toBe(403);
  });

  it('only whole epoch seconds match the route', async () => {
    expect((await call(node!.url, 'GET', '/cam1/thumb-12x.jpg')).status).toBe(404);
    expect((await call(node!.url, 'GET', '/cam1/thumb-123456789012.jpg')).status).toBe(404);
  });
});

describe('what is recorded in a window', () => {
  const ranges = async (from: number, secs: number, stream = 'cam1') => {
    const r = await fetch(
      `${node!.url}/${stream}/recorded-${from}-${secs}.json?token=${encodeURIComponent(await token(stream))}`,
    );
    return { status: r.status, body: (await r.json()) as { ranges?: Array<{ from_ms: number; to_ms: number }> } };
  };

  it('the recording as ranges of wall-clock ms, a week at most; nothing recorded is an empty list', async () => {
    const segs = await recorded();
    const from = Math.floor(segs[0]!.start / 1000) - 60;
    const r = await ranges(from, 7 * 86_400);
    expect(r.status).toBe(200);
    // One run of the ingest: one range, from the first segment's start to at least the last one's end.
    expect(r.body.ranges).toHaveLength(1);
    expect(r.body.ranges![0]!.from_ms).toBe(segs[0]!.start);
    const last = segs[segs.length - 1]!;
    expect(r.body.ranges![0]!.to_ms).toBeGreaterThanOrEqual(last.start + last.duration);
    expect((await ranges(from - 3600, 60)).body).toEqual({ ranges: [] });
    expect((await ranges(from, 60, 'other')).body).toEqual({ ranges: [] });
    expect((await ranges(from, 7 * 86_400 + 1)).status).toBe(400);
    expect((await fetch(`${node!.url}/cam1/recorded-${from}-60.json`)).status).toBe(403);
  });
});
