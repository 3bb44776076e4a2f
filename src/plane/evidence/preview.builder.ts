import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import { runFfmpeg } from '../../common/run-ffmpeg.js';
import type { EvidenceStorage } from './evidence.storage.js';

/** Previews fit in 320 x 320 (never enlarged): small enough for a feed row or a card. */
export const PREVIEW_BOX = 320;
const MAX_INPUT_PIXELS = 50_000_000;
const FFMPEG_TIMEOUT_MS = 20_000;
/** Refs whose build failed are remembered (bounded) so that polling a broken one does not rebuild it each time. */
const MAX_FAILED = 10_000;

/** The preview of an attachment lives next to its bytes, under the same backend (local now, S3 later). */
export function previewKey(storageKey: string): string {
  return `${storageKey}.preview.jpg`;
}

/** `ffmpeg` on PATH (the system binary, e.g. /usr/bin/ffmpeg), or null: video previews are then not built. */
export function ffmpegOnPath(path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const f = join(dir, 'ffmpeg');
    try {
      accessSync(f, constants.X_OK);
      return f;
    } catch {
      /* next */
    }
  }
  return null;
}

export type PreviewKind = 'image' | 'video' | null;

/**
 * Which attachments get a preview. SVG is left out: a vector document is not evidence we rasterise
 * on the server, and it is where external references would hide.
 */
export function previewKind(contentType: string, ffmpeg: string | null): PreviewKind {
  const t = contentType.split(';')[0]!.trim().toLowerCase();
  if (/^image\/(jpeg|jpg|pjpeg|png|webp|gif|tiff|avif|heif|heic)$/.test(t)) return 'image';
  if (t.startsWith('video/') && ffmpeg) return 'video';
  return null;
}

export interface PreviewJob {
  ref: string;
  storageKey: string;
  contentType: string;
}

/**
 * Builds JPEG previews in the background, one at a time (the plane shares two cores with the
 * database): images with sharp, videos by taking their first frame with ffmpeg and passing it
 * through sharp. A ref is built once; requests for one already queued or being built join it.
 */
export class PreviewBuilder {
  private readonly queue: PreviewJob[] = [];
  private readonly pending = new Set<string>();
  private readonly failed = new Set<string>();
  private running: Promise<void> | null = null;
  /** whether the most recent build threw (settings: stats.failed_jobs) */
  private lastFailed = false;

  constructor(
    private readonly storage: EvidenceStorage,
    readonly ffmpeg: string | null = ffmpegOnPath(),
    private readonly log: { warn(o: object, msg: string): void } = { warn: () => {} },
  ) {}

  kind(contentType: string): PreviewKind {
    return previewKind(contentType, this.ffmpeg);
  }

  hasFailed(ref: string): boolean {
    return this.failed.has(ref);
  }

  /** Whether the last build failed: the preview job counts in the evidence storage's failed_jobs until one succeeds. */
  lastRunFailed(): boolean {
    return this.lastFailed;
  }

  /** Queues a build unless the type has no preview, or it is queued, building or failed. */
  request(job: PreviewJob): void {
    if (!this.kind(job.contentType) || this.pending.has(job.ref) || this.failed.has(job.ref)) return;
    this.pending.add(job.ref);
    this.queue.push(job);
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
  }

  /** Resolves when the queue is empty (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    for (let job = this.queue.shift(); job; job = this.queue.shift()) {
      try {
        const jpeg = await this.build(job);
        if (jpeg) await this.storage.put(previewKey(job.storageKey), jpeg, 'image/jpeg');
        else this.fail(job.ref);
        this.lastFailed = false;
      } catch (err) {
        this.log.warn({ err, ref: job.ref }, 'attachment preview failed');
        this.fail(job.ref);
        this.lastFailed = true;
      } finally {
        this.pending.delete(job.ref);
      }
    }
  }

  private fail(ref: string): void {
    if (this.failed.size >= MAX_FAILED) this.failed.delete(this.failed.values().next().value!);
    this.failed.add(ref);
  }

  /** The JPEG, or null when the bytes are gone. */
  private async build(job: PreviewJob): Promise<Buffer | null> {
    const opened = await this.storage.open(job.storageKey);
    if (!opened) return null;
    if (this.kind(job.contentType) === 'image') {
      const chunks: Buffer[] = [];
      for await (const c of opened.body) chunks.push(c as Buffer);
      return toJpeg(Buffer.concat(chunks));
    }
    // A video is read from a file: ffmpeg needs to seek (an MP4 index may sit at the end).
    const dir = await mkdtemp(join(tmpdir(), 'argus-preview-'));
    try {
      const file = join(dir, 'input');
      await pipeline(opened.body, createWriteStream(file, { mode: 0o600 }));
      return toJpeg(await firstFrame(this.ffmpeg!, file));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

async function toJpeg(input: Buffer): Promise<Buffer> {
  return sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, animated: false })
    .rotate()
    .resize(PREVIEW_BOX, PREVIEW_BOX, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#000000' })
    .jpeg({ quality: 75 })
    .toBuffer();
}

/** The first video frame as PNG bytes. */
async function firstFrame(ffmpeg: string, file: string): Promise<Buffer> {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', file, '-map', '0:v:0', '-frames:v', '1'];
  const run = await runFfmpeg(ffmpeg, [...args, '-f', 'image2pipe', '-c:v', 'png', 'pipe:1'], {
    timeoutMs: FFMPEG_TIMEOUT_MS,
    stdout: true,
  });
  if (run.code === 0 && run.stdout.length) return run.stdout;
  throw new Error(`ffmpeg exited ${run.code}: ${run.stderr.trim()}`);
}
