import { grabJpeg } from '../ffmpeg.js';
import { errors } from '../../errors.js';
import type { DvrStore } from '../dvr/dvr.store.js';

/** Width of a thumbnail: a hover picture over the timeline, not a still for evidence. */
export const THUMB_WIDTH = 160;

export interface ThumbnailOptions {
  ffmpeg: string;
  /** The recording of a stream (DvrService.store). */
  store(stream: string): DvrStore | undefined;
  /** Pictures kept (LRU); each is a few kilobytes. */
  maxEntries?: number;
  /** ffmpeg runs at once; the rest wait in line. */
  concurrency?: number;
  /** Requests that may wait for a run; past it the answer is 429, so a sweeping hover cannot pile up work. */
  maxWaiting?: number;
}

/**
 * `/{stream}/thumb-<epoch secs>.jpg` (issue 23): one small frame of the recording at a moment,
 * for the console's hover over the timeline. The segment covering the moment is found in the
 * recording, ffmpeg seeks into it and writes one JPEG `THUMB_WIDTH` wide. Pictures are kept by
 * stream, segment and second in a bounded LRU (a recording does not change once written, and
 * the console asks for moments rounded to its zoom's step, so a hover over the same stretch hits
 * the cache); at most `concurrency` ffmpegs run, and at most `maxWaiting` requests wait for one.
 */
export class Thumbnails {
  private readonly cache = new Map<string, Promise<Buffer>>();
  private readonly waiting: Array<() => void> = [];
  private running = 0;
  private readonly maxEntries: number;
  private readonly concurrency: number;
  private readonly maxWaiting: number;
  /** ffmpeg runs started (tests read it to see the cache at work). */
  runs = 0;

  constructor(private readonly opts: ThumbnailOptions) {
    this.maxEntries = opts.maxEntries ?? 512;
    this.concurrency = opts.concurrency ?? 2;
    this.maxWaiting = opts.maxWaiting ?? 16;
  }

  /** The JPEG of `stream` at `atSecs`: 404 `no_recording` outside the recording, 429 when too many wait. */
  jpeg(stream: string, atSecs: number): Promise<Buffer> {
    const store = this.opts.store(stream);
    const atMs = atSecs * 1000;
    const seg = store?.range(atMs, atMs + 1)[0];
    if (!store || !seg) return Promise.reject(errors.noRecording(stream));
    // A whole second into the segment, never past its last frame.
    const offset = Math.max(0, Math.min(Math.floor((atMs - seg.start) / 1000), Math.floor(seg.duration / 1000 - 0.2)));
    const key = `${stream}\n${seg.start}\n${offset}`;
    const hit = this.cache.get(key);
    if (hit) {
      // Most recently used goes to the end of the map's order.
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    if (this.running >= this.concurrency && this.waiting.length >= this.maxWaiting)
      return Promise.reject(errors.tooManyRequests(1));
    const job = this.slot(() => grab(this.opts.ffmpeg, store.path(seg), offset));
    this.cache.set(key, job);
    job.catch(() => this.cache.delete(key));
    while (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    return job;
  }

  /** The recording of a stream (the recorded-ranges route reads it too). */
  store(stream: string): DvrStore | undefined {
    return this.opts.store(stream);
  }

  get size(): number {
    return this.cache.size;
  }

  private async slot<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) await new Promise<void>((go) => this.waiting.push(go));
    this.running++;
    this.runs++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}

function grab(ffmpeg: string, input: string, offsetSecs: number): Promise<Buffer> {
  return grabJpeg(ffmpeg, input, {
    // Before the input: a fast seek to the key frame, then decoding up to the moment.
    before: ['-ss', String(offsetSecs)],
    filter: ['-vf', `scale=${THUMB_WIDTH}:-2`],
    quality: 6,
    what: 'thumbnail',
  });
}
