import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pino from 'pino';
import { Ingest } from '../../../src/node/media/ingest/ingest.process.js';
import { ffmpegPath, mediaToolEnv } from '../../../src/common/media-tools.js';
import { freePort, tempDir } from '../helpers/node-process.js';
import { waitFor } from './media-helpers.js';

/**
 * Issue 25, item 3: ffmpeg followed an http source's redirects and an HLS playlist's entries to
 * any host. Through the source gate it reaches only the source's own host: the "other host"
 * (127.0.0.2, another loopback address) must never be asked, while the same host still serves.
 */
let dir: string;
let source: Server;
let other: Server;
let portA: number;
let portB: number;
const otherHits: string[] = [];
let clip: Buffer;

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve) => server.listen(port, host, () => resolve()));
}

beforeAll(async () => {
  dir = await tempDir('argus-gate-');
  // Ten one-second MPEG-TS segments' worth of a tiny H.264 picture.
  await promisify(execFile)(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x90:rate=10:duration=10',
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
      join(dir, 'seg.ts'),
    ],
    { env: mediaToolEnv(ffmpegPath()) },
  );
  clip = await readFile(join(dir, 'seg.ts'));
  [portA, portB] = [await freePort(), await freePort()];
  const playlist = (uri: string) =>
    `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:10.0,\n${uri}\n#EXT-X-ENDLIST\n`;
  source = createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/redirect.ts') res.writeHead(302, { location: `http://127.0.0.2:${portB}/evil.ts` }).end();
    else if (url === '/same-host-redirect.ts') res.writeHead(302, { location: '/seg.ts' }).end();
    else if (url === '/cross.m3u8')
      res
        .writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' })
        .end(playlist(`http://127.0.0.2:${portB}/evil.ts`));
    else if (url === '/own.m3u8')
      res.writeHead(200, { 'content-type': 'application/vnd.apple.mpegurl' }).end(playlist('seg.ts'));
    else if (url === '/seg.ts') res.writeHead(200, { 'content-type': 'video/mp2t' }).end(clip);
    else res.writeHead(404).end();
  });
  other = createServer((req, res) => {
    otherHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'video/mp2t' }).end(clip);
  });
  await listen(source, '127.0.0.1', portA);
  await listen(other, '127.0.0.2', portB);
});
afterAll(async () => {
  source?.close();
  other?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs an ingest of `input` until it has a segment or `ms` pass; answers whether it had one. */
async function ingest(input: string, ms: number): Promise<boolean> {
  const segments: unknown[] = [];
  const ing = new Ingest({
    stream: 'gate',
    input,
    liveDir: join(dir, `live-${Math.random().toString(36).slice(2)}`),
    ffmpeg: ffmpegPath(),
    segmentSecs: 1,
    log: pino({ level: 'silent' }),
    now: () => Date.now(),
    onState: () => undefined,
    onSegment: (s) => segments.push(s),
  });
  ing.start();
  try {
    await waitFor('a segment', async () => segments.length > 0, ms).catch(() => undefined);
    return segments.length > 0;
  } finally {
    await ing.stop(2000);
  }
}

describe('the source gate', () => {
  it('a redirect to another host is not followed', async () => {
    otherHits.length = 0;
    await ingest(`http://127.0.0.1:${portA}/redirect.ts`, 4000);
    expect(otherHits).toEqual([]);
  });

  it('an HLS playlist naming a segment on another host does not reach it', async () => {
    otherHits.length = 0;
    await ingest(`http://127.0.0.1:${portA}/cross.m3u8`, 4000);
    expect(otherHits).toEqual([]);
  });

  it("the source's own host still serves: a same-host redirect and a same-host playlist", async () => {
    otherHits.length = 0;
    expect(await ingest(`http://127.0.0.1:${portA}/same-host-redirect.ts`, 20_000)).toBe(true);
    expect(await ingest(`http://127.0.0.1:${portA}/own.m3u8`, 20_000)).toBe(true);
    expect(otherHits).toEqual([]);
  });
});
