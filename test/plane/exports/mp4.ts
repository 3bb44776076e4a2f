import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ffmpegPath, mediaToolEnv } from '../../../src/common/media-tools.js';

/**
 * A small H.264 MP4 (moov first, as the node's exports are) from ffmpeg's test pattern. The ffmpeg
 * is found as the node finds it (the system's, else the npm package's): a machine without a system
 * ffmpeg runs these tests too (issue 25).
 */
export async function makeMp4(file: string, secs = 2): Promise<void> {
  const ffmpeg = ffmpegPath();
  await promisify(execFile)(
    ffmpeg,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=320x240:rate=25:duration=${secs}`,
      '-c:v',
      'libx264',
      '-pix_fmt',
      'yuv420p',
      '-movflags',
      '+faststart',
      file,
    ],
    { env: mediaToolEnv(ffmpeg) },
  );
}
