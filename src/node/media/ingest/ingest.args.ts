import { join } from 'node:path';
import type { InputPlan } from './input.js';

export interface OutputOptions {
  encode: boolean;
  segmentSecs: number;
  /** Target kbit/s when encoding a synthetic source; camera video that must be encoded keeps its quality (CRF). */
  bitrateKbps?: number;
  liveDir: string;
  /** Run number: segment names carry it so a restarted ffmpeg never reuses a name a player may hold. */
  run: number;
}

/** The live playlist keeps this many segments; older ones are deleted a little later so late readers finish. */
export const LIVE_LIST_SIZE = 6;

/**
 * The whole ffmpeg command for one ingest run: one input, video only, live HLS out.
 * `-progress pipe:1` gives frame counts to judge health; the playlist carries program date-times
 * so the recorder knows each segment's wall-clock start.
 */
export function ffmpegArgs(plan: InputPlan, o: OutputOptions): string[] {
  const video = o.encode ? encodeArgs(o) : ['-c:v', 'copy'];
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'info',
    '-nostats',
    '-progress',
    'pipe:1',
    ...plan.args,
    // Audio is dropped: cameras send G.711 or AAC variants HLS/TS cannot always carry, and
    // surveillance viewing does not need it.
    '-map',
    '0:v:0',
    '-an',
    '-sn',
    '-dn',
    ...video,
    '-f',
    'hls',
    '-hls_time',
    String(o.segmentSecs),
    '-hls_list_size',
    String(LIVE_LIST_SIZE),
    '-hls_delete_threshold',
    String(LIVE_LIST_SIZE),
    '-hls_flags',
    'delete_segments+program_date_time+independent_segments+temp_file',
    '-hls_segment_filename',
    join(o.liveDir, `r${o.run}-%d.ts`),
    join(o.liveDir, 'index.m3u8'),
  ];
}

function encodeArgs(o: OutputOptions): string[] {
  const rate =
    o.bitrateKbps !== undefined
      ? ['-b:v', `${o.bitrateKbps}k`, '-maxrate', `${o.bitrateKbps}k`, '-bufsize', `${o.bitrateKbps * 2}k`]
      : ['-crf', '26'];
  return [
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-tune',
    'zerolatency',
    '-pix_fmt',
    'yuv420p',
    '-profile:v',
    'baseline',
    ...rate,
    // A key frame at every segment boundary: segments must start with one to be cut there.
    '-force_key_frames',
    `expr:gte(t,n_forced*${o.segmentSecs})`,
    '-sc_threshold',
    '0',
  ];
}
