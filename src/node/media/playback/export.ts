import { runFfmpeg } from '../../../common/run-ffmpeg.js';
import { mediaFailure, spawnMedia } from '../ffmpeg.js';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { RecordedSegment } from '../dvr/dvr.store.js';

/** One export may cover at most this much recording (a longer one belongs to an archive tool). */
export const EXPORT_MAX_SECS = 6 * 3600;

function ffconcatPath(p: string): string {
  return `'${p.replace(/'/g, "'\\''")}'`;
}

/**
 * A recorded range as one MP4 file: the segments are joined and cut at the range with ffmpeg's
 * concat demuxer, video copied (no re-encoding), moov atom first so a browser can start playing
 * the download at once. Written under `{data_dir}/tmp` and removed by `cleanup`.
 */
export async function exportMp4(
  ffmpeg: string,
  tmpDir: string,
  segments: Array<RecordedSegment & { path: string }>,
  fromMs: number,
  toMs: number,
): Promise<{ file: string; cleanup(): Promise<void> }> {
  await mkdir(tmpDir, { recursive: true, mode: 0o700 });
  const id = randomUUID();
  const list = join(tmpDir, `${id}.ffconcat`);
  const file = join(tmpDir, `${id}.mp4`);
  const lines = ['ffconcat version 1.0'];
  segments.forEach((s, i) => {
    lines.push(`file ${ffconcatPath(s.path)}`);
    if (i === 0 && fromMs > s.start) lines.push(`inpoint ${((fromMs - s.start) / 1000).toFixed(3)}`);
    if (i === segments.length - 1 && toMs < s.start + s.duration)
      lines.push(`outpoint ${((toMs - s.start) / 1000).toFixed(3)}`);
  });
  await writeFile(list, lines.join('\n') + '\n', { mode: 0o600 });
  const cleanup = async (): Promise<void> => {
    await rm(list, { force: true });
    await rm(file, { force: true });
  };
  try {
    await run(ffmpeg, [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-f',
      'concat',
      '-safe',
      '0',
      '-i',
      list,
      '-map',
      '0:v:0',
      '-c',
      'copy',
      '-movflags',
      '+faststart',
      '-f',
      'mp4',
      file,
    ]);
  } catch (err) {
    await cleanup();
    throw err;
  }
  return { file, cleanup };
}

async function run(ffmpeg: string, args: string[]): Promise<void> {
  const r = await runFfmpeg(ffmpeg, args, { timeoutMs: 120_000, spawn: spawnMedia });
  if (r.code !== 0) throw mediaFailure('export', r);
}
