import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { freePort, startNode, type RunningNode } from '../helpers/node-process.js';
import {
  MEDIA_ENV,
  ffprobe,
  httpSource,
  killChild,
  rtmpSource,
  stopAndReap,
  uris,
  waitState,
} from './media-helpers.js';
import { call } from '../helpers/node-process.js';

/**
 * A source that dies: a local ffmpeg serves MPEG-TS over HTTP (a camera stand-in), the test
 * kills it and the stream turns `failing` with ffmpeg's reason; when the source comes back,
 * the supervised ingest reconnects by itself and the stream is `live` again.
 */
let node: RunningNode;
let source: ChildProcess | undefined;
let rtmp: ChildProcess | undefined;
let slow: ChildProcess | undefined;
let port: number;

beforeAll(async () => {
  port = await freePort();
  const rtmpPort = await freePort();
  const slowPort = await freePort();
  source = httpSource(port);
  slow = httpSource(slowPort, 0.4);
  rtmp = rtmpSource(rtmpPort);
  node = await startNode(
    `stream cam { input http://127.0.0.1:${port}/live.ts; }\nstream gone { input rtsp://cam-user:cam-secret@127.0.0.1:9/none; }\n` +
      `stream pull { input rtmp://127.0.0.1:${rtmpPort}/live/cam; }\nstream slow { input http://127.0.0.1:${slowPort}/live.ts; }\n`,
    { env: MEDIA_ENV },
  );
});
afterAll(async () => {
  await killChild(source);
  await killChild(rtmp);
  await killChild(slow);
  expect(await stopAndReap(node)).toEqual([]);
});

describe('a supervised ingest', () => {
  it('copies the H.264 of an HTTP MPEG-TS source', async () => {
    const row = await waitState(node, 'cam', 'live', 25_000);
    expect(row).toMatchObject({ video: 'copy', codec: 'h264', resolution: '160x90', last_error: null });
  });

  it('copies the H.264 of an RTMP source', async () => {
    const row = await waitState(node, 'pull', 'live', 25_000);
    expect(row).toMatchObject({ video: 'copy', codec: 'h264', resolution: '160x90' });
    const segs = uris((await call(node.url, 'GET', '/pull/live.m3u8')).text);
    expect(await ffprobe(`${node.url}/pull/${segs[segs.length - 1]}`)).toMatchObject({
      codec_name: 'h264',
      width: '160',
    });
  });

  it('turns failing with the reason when the source dies, and recovers when it returns', async () => {
    await killChild(source);
    const failing = await waitState(node, 'cam', 'failing', 20_000);
    expect(typeof failing.last_error).toBe('string');
    expect(failing.last_error.length).toBeGreaterThan(0);
    expect(typeof failing.last_error_ms).toBe('number');
    expect(failing.since_ms).toBeGreaterThanOrEqual(failing.last_error_ms - 1000);
    source = httpSource(port);
    const back = await waitState(node, 'cam', 'live', 30_000);
    // The last error stays visible with its time, for the operator.
    expect(back.last_error).toBe(failing.last_error);
  });

  it('is degraded while frames arrive at less than half the declared rate', async () => {
    // ffmpeg first probes the slow source (about 12 s at 0.4x), then frames come at 4 fps.
    const row = await waitState(node, 'slow', 'degraded', 40_000);
    expect(row.reason).toMatch(/^(frames late: [\d.]+ fps of 10|segments late: none for \d+ s)$/);
    expect(row.fps).toBeLessThan(5);
  }, 45_000);

  it('an unreachable camera is failing, without its password in the reason', async () => {
    const row = await waitState(node, 'gone', 'failing', 15_000);
    expect(row.input).toBe('rtsp://cam-user:***@127.0.0.1:9/none');
    expect(row.last_error).toMatch(/refused|Connection|error/i);
    expect(JSON.stringify(row)).not.toContain('cam-secret');
    expect(node.logs.map((l) => JSON.stringify(l)).join('\n')).not.toContain('cam-secret');
  });
});
