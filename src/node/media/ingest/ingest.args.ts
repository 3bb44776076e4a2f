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
  /**
   * A file descriptor of the child to write fragmented MP4 to as well (live over WebSocket,
   * media/live-ws): the same encoded (or copied) video, through the `tee` muxer, not a second encode.
   */
  fmp4Fd?: number;
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
    ...(o.fmp4Fd === undefined ? hlsArgs(o) : teeArgs(o, o.fmp4Fd)),
  ];
}

function hlsOptions(o: OutputOptions): Array<[string, string]> {
  return [
    ['hls_time', String(o.segmentSecs)],
    ['hls_list_size', String(LIVE_LIST_SIZE)],
    ['hls_delete_threshold', String(LIVE_LIST_SIZE)],
    ['hls_flags', 'delete_segments+program_date_time+independent_segments+temp_file'],
    ['hls_segment_filename', join(o.liveDir, `r${o.run}-%d.ts`)],
  ];
}

function hlsArgs(o: OutputOptions): string[] {
  return ['-f', 'hls', ...hlsOptions(o).flatMap(([k, v]) => [`-${k}`, v]), join(o.liveDir, 'index.m3u8')];
}

/**
 * The fragmented MP4 beside HLS: an empty moov (the init segment comes first), one fragment per
 * frame (the least latency a fragment can add), each preceded by a `prft` box giving the ingest's
 * wall clock for that fragment's media time (the console's latency bench reads it). `onfail=ignore`:
 * a failure of that pipe never stops HLS and the recordings.
 */
export const FMP4_OPTIONS: ReadonlyArray<[string, string]> = [
  ['f', 'mp4'],
  ['movflags', 'empty_moov+default_base_moof+frag_every_frame'],
  ['write_prft', 'wallclock'],
  ['flush_packets', '1'],
  ['onfail', 'ignore'],
];

function teeArgs(o: OutputOptions, fd: number): string[] {
  const slave = (opts: ReadonlyArray<[string, string]>, target: string): string =>
    `[${opts.map(([k, v]) => `${k}=${teeEscape(v, ':=]')}`).join(':')}]${target}`;
  const hls = slave([['f', 'hls'], ...hlsOptions(o)], join(o.liveDir, 'index.m3u8'));
  return ['-f', 'tee', `${teeEscape(hls, '|')}|${teeEscape(slave(FMP4_OPTIONS, `pipe:${fd}`), '|')}`];
}

/**
 * ffmpeg's quoting (ffmpeg-utils "Quoting and escaping"): the tee muxer reads its slave list with
 * one level of unescaping and each slave's options with another, so a data_dir holding `:` or `|`
 * still names the right files.
 */
function teeEscape(s: string, special: string): string {
  let out = '';
  for (const c of s) out += c === '\\' || c === "'" || special.includes(c) ? `\\${c}` : c;
  return out;
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
    // Out-of-band SPS/PPS: the MP4 of the tee needs them in its moov (mpegts puts them before key frames itself).
    ...(o.fmp4Fd === undefined ? [] : ['-flags', '+global_header']),
  ];
}
