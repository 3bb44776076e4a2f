import { grabJpeg } from '../ffmpeg.js';

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
  return grabJpeg(ffmpeg, input, { quality: 5, what: 'preview' });
}
