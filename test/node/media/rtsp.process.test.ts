import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { call, freePort, startNode, type RunningNode } from '../helpers/node-process.js';
import { MEDIA_ENV, ffprobe, killChild, stopAndReap, uris, waitState } from './media-helpers.js';
import { ffmpegPath, mediaToolEnv } from '../../../src/common/media-tools.js';

/**
 * An RTSP camera stand-in: an RTSP relay (npm rtsp-streaming-server, in this test process) fed by
 * a local ffmpeg. The relay speaks RTP over UDP only, so this also covers the TCP-to-UDP fallback.
 */
interface Closable {
  close(): void;
}
interface Relay {
  start(): Promise<void>;
  ClientServer: { server: Closable };
  PublishServer: { server: Closable };
}
const RtspServer = (
  createRequire(import.meta.url)('rtsp-streaming-server') as { default: new (o: Record<string, number>) => Relay }
).default;

let relay: Relay;
let publisher: ChildProcess | undefined;
let node: RunningNode;
let clientPort: number;

beforeAll(async () => {
  const serverPort = await freePort();
  clientPort = await freePort();
  relay = new RtspServer({
    serverPort,
    clientPort,
    rtpPortStart: 30000 + Math.floor(Math.random() * 300) * 100,
    rtpPortCount: 100,
  });
  await relay.start();
  publisher = spawn(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-re',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x90:rate=10',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-tune',
      'zerolatency',
      '-g',
      '10',
      '-pix_fmt',
      'yuv420p',
      '-f',
      'rtsp',
      `rtsp://127.0.0.1:${serverPort}/cam`,
    ],
    { stdio: 'ignore', env: mediaToolEnv(ffmpegPath()) },
  );
  node = await startNode(`stream door { input rtsp://127.0.0.1:${clientPort}/cam; }\n`, { env: MEDIA_ENV });
});
afterAll(async () => {
  expect(await stopAndReap(node)).toEqual([]);
  await killChild(publisher);
  // The relay has no stop; its TCP listeners are closed by hand (UDP sockets go with the worker).
  relay?.ClientServer.server.close();
  relay?.PublishServer.server.close();
});

describe('an rtsp:// source', () => {
  it('is pulled and its H.264 copied into live HLS', async () => {
    const row = await waitState(node, 'door', 'live', 30_000);
    expect(row).toMatchObject({ video: 'copy', codec: 'h264', resolution: '160x90', last_error: null });
    const segs = uris((await call(node.url, 'GET', '/door/live.m3u8')).text);
    expect(await ffprobe(`${node.url}/door/${segs[segs.length - 1]}`)).toMatchObject({
      codec_name: 'h264',
      width: '160',
      height: '90',
    });
  }, 35_000);
});
