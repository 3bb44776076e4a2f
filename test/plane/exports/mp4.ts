import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/** A small H.264 MP4 (moov first, as the node's exports are) from ffmpeg's test pattern. */
export async function makeMp4(file: string, secs = 2): Promise<void> {
  await promisify(execFile)('ffmpeg', [
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
  ]);
}
