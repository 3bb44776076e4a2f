import { describe, expect, it } from 'vitest';
import { ffmpegPath, mediaToolEnv } from '../../src/common/media-tools.js';
import { runFfmpeg } from '../../src/common/run-ffmpeg.js';

// The one bounded media run that the plane's video previews and the node's previews, thumbnails,
// exports and source probes share: each is a real ffmpeg here.
const ffmpeg = ffmpegPath();
const env = mediaToolEnv(ffmpeg);
const quiet = ['-hide_banner', '-nostdin', '-loglevel', 'error'];
/** A picture ffmpeg makes itself, without end unless a frame count stops it. */
const testsrc = ['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25'];
/** Far above what any of these runs takes: a run that reaches it has not been ended by what the test is about. */
const LONG = 60_000;

describe('runFfmpeg', () => {
  it('collects a frame from standard output and reports a clean exit', async () => {
    const run = await runFfmpeg(
      ffmpeg,
      [...quiet, ...testsrc, '-frames:v', '1', '-f', 'image2pipe', '-c:v', 'mjpeg', 'pipe:1'],
      { timeoutMs: LONG, stdout: true, env },
    );
    expect({ code: run.code, timedOut: run.timedOut, stderr: run.stderr }).toEqual({
      code: 0,
      timedOut: false,
      stderr: '',
    });
    // A JPEG begins with SOI (FF D8) and ends with EOI (FF D9): the whole frame was read.
    expect([...run.stdout.subarray(0, 2)]).toEqual([0xff, 0xd8]);
    expect([...run.stdout.subarray(-2)]).toEqual([0xff, 0xd9]);
  });

  it('leaves standard output unread unless asked, and hands over standard error as it comes', async () => {
    const pieces: string[] = [];
    const run = await runFfmpeg(ffmpeg, [...quiet, '-i', '/nonexistent/argus-input.ts', '-f', 'null', '-'], {
      timeoutMs: LONG,
      env,
      onStderr: (c) => pieces.push(c),
    });
    expect(run.code).not.toBe(0);
    expect(run.timedOut).toBe(false);
    expect(run.stdout.length).toBe(0);
    expect(run.stderr).toMatch(/No such file or directory/);
    expect(pieces.join('')).toBe(run.stderr);
  });

  it('keeps the end of a long standard error, where ffmpeg says why it stopped', async () => {
    // Node stands in for ffmpeg: 10,000 characters of noise, then the reason, on standard error.
    const script = "process.stderr.write('x'.repeat(10000) + '\\nwhy it stopped\\n'); process.exit(3)";
    const run = await runFfmpeg(process.execPath, ['-e', script], { timeoutMs: LONG });
    expect(run.code).toBe(3);
    expect(run.stderr.length).toBe(2000);
    expect(run.stderr.endsWith('x\nwhy it stopped\n')).toBe(true);
  });

  it('kills a run that outlasts its bound and says so', async () => {
    // testsrc without a frame count never ends: only the bound stops it.
    const run = await runFfmpeg(ffmpeg, [...quiet, ...testsrc, '-f', 'null', '-'], { timeoutMs: 300, env });
    expect({ code: run.code, timedOut: run.timedOut }).toEqual({ code: null, timedOut: true });
  });

  it('kills a run whose standard output passes its limit, keeping what came within it', async () => {
    const limit = 100_000;
    const run = await runFfmpeg(ffmpeg, [...quiet, ...testsrc, '-f', 'rawvideo', 'pipe:1'], {
      timeoutMs: LONG,
      stdout: true,
      maxStdoutBytes: limit,
      env,
    });
    expect({ code: run.code, timedOut: run.timedOut }).toEqual({ code: null, timedOut: false });
    expect(run.stdout.length).toBeGreaterThan(0);
    expect(run.stdout.length).toBeLessThanOrEqual(limit);
  });

  it('rejects when the program cannot be started', async () => {
    await expect(runFfmpeg('/nonexistent/ffmpeg', ['-version'], { timeoutMs: LONG })).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});
