import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import {
  findOnPath,
  mediaToolEnv,
  npmMediaTool,
  resolveMediaTool,
  type MediaToolLocation,
} from '../../common/media-tools.js';
import { runFfmpeg, type FfmpegRun } from '../../common/run-ffmpeg.js';

export { findOnPath } from '../../common/media-tools.js';

/** The ffmpeg @ffmpeg-installer/ffmpeg ships for this platform, or null when it has none. */
export function npmFfmpeg(): string | null {
  return npmMediaTool('ffmpeg');
}

/**
 * Document 4 section 6: the system's ffmpeg when it is on PATH (the distribution patches and
 * updates it, and it has the codecs the operator installed), else the one an npm package ships.
 * `ARGUS_FFMPEG` names a binary explicitly and wins over both. One rule with the tests'
 * (src/common/media-tools.ts).
 */
export function resolveFfmpeg(env: NodeJS.ProcessEnv = process.env): MediaToolLocation {
  return resolveMediaTool('ffmpeg', env);
}

let setpriv: string | null | undefined;

/**
 * Spawns a media child that dies with the node. Node ignores SIGPIPE and its children inherit
 * that, so an ffmpeg whose parent was killed would keep writing forever; on Linux `setpriv
 * --pdeathsig KILL` (util-linux) asks the kernel to end it when the node goes. Under systemd the
 * unit's control group catches anything left as well.
 */
export function spawnMedia(bin: string, args: string[], options: SpawnOptions): ChildProcess {
  if (setpriv === undefined) setpriv = process.platform === 'linux' ? findOnPath(process.env.PATH, 'setpriv') : null;
  // The npm binaries need their own environment (media-tools.ts: mediaToolEnv).
  const opts = { ...options, env: mediaToolEnv(bin, options.env ?? process.env) };
  if (setpriv) return spawn(setpriv, ['--pdeathsig', 'KILL', '--', bin, ...args], opts);
  return spawn(bin, args, opts);
}

/**
 * A failed run in the node's words: what failed and ffmpeg's last line of error
 * (`thumbnail failed: …`, `export failed: …`).
 */
export function mediaFailure(what: string, run: FfmpegRun): Error {
  return new Error(`${what} failed: ${run.stderr.trim().split('\n').pop() ?? run.code}`);
}

/**
 * One frame of `input` as a JPEG on ffmpeg's standard output (the live preview, a recording's
 * thumbnail): `before` goes ahead of the input (a seek), `filter` after it (a scale); ended after
 * 10 s. Rejects with ffmpeg's last line of error, prefixed with `what`.
 */
export async function grabJpeg(
  ffmpeg: string,
  input: string,
  o: { before?: string[]; filter?: string[]; quality: number; what: string },
): Promise<Buffer> {
  const args = [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error'],
    ...(o.before ?? []),
    ...['-i', input, '-frames:v', '1'],
    ...(o.filter ?? []),
    ...['-q:v', String(o.quality), '-f', 'image2pipe', '-c:v', 'mjpeg', 'pipe:1'],
  ];
  const run = await runFfmpeg(ffmpeg, args, { timeoutMs: 10_000, stdout: true, spawn: spawnMedia });
  if (run.code === 0 && run.stdout.length > 0) return run.stdout;
  throw mediaFailure(o.what, run);
}
