import { spawnMedia } from '../ffmpeg.js';

/**
 * `/{stream}/preview.jpg`: the first picture of the newest segment (each starts with a key
 * frame, so no decoding of earlier data is needed). One JPEG per segment is kept, so a wall of
 * thumbnails refreshing every second costs one ffmpeg run per segment, not per request.
 */
export class Previews {
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(private readonly ffmpeg: string) {}

  jpeg(stream: string, segmentPath: string): Promise<Buffer> {
    const key = `${stream}\n${segmentPath}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    for (const k of this.cache.keys()) if (k.startsWith(`${stream}\n`)) this.cache.delete(k);
    const job = grab(this.ffmpeg, segmentPath);
    this.cache.set(key, job);
    job.catch(() => this.cache.delete(key));
    return job;
  }
}

function grab(ffmpeg: string, input: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const p = spawnMedia(
      ffmpeg,
      [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'error',
        '-i',
        input,
        '-frames:v',
        '1',
        '-q:v',
        '5',
        '-f',
        'image2pipe',
        '-c:v',
        'mjpeg',
        'pipe:1',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const out: Buffer[] = [];
    let err = '';
    const kill = setTimeout(() => p.kill('SIGKILL'), 10_000);
    p.stdout!.on('data', (c: Buffer) => out.push(c));
    p.stderr!.setEncoding('utf8').on('data', (c: string) => {
      err += c;
    });
    p.once('error', (e) => {
      clearTimeout(kill);
      reject(e);
    });
    p.once('exit', (code) => {
      clearTimeout(kill);
      const jpeg = Buffer.concat(out);
      if (code === 0 && jpeg.length > 0) resolve(jpeg);
      else reject(new Error(`preview failed: ${err.trim().split('\n').pop() ?? code}`));
    });
  });
}
