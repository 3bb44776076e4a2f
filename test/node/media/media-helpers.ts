import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { call, type RunningNode } from '../helpers/node-process.js';
import { ffmpegPath, ffprobePath, mediaToolEnv } from '../../../src/common/media-tools.js';

const run = promisify(execFile);

/** Short segments and a short viewer idle time keep the media suite fast. */
export const MEDIA_ENV = { ARGUS_NODE_SEGMENT_SECS: '1', ARGUS_NODE_VIEWER_IDLE_SECS: '3' };

/** A small, cheap synthetic source. */
export const TESTSRC = 'testsrc://t?size=160x90&rate=10&bitrate=100';

export async function ffprobe(
  target: string,
  entries = 'stream=codec_name,width,height:format=duration',
): Promise<Record<string, string>> {
  const { stdout } = await run(
    ffprobePath(),
    ['-v', 'error', '-show_entries', entries, '-of', 'default=noprint_wrappers=1', target],
    { timeout: 20_000, env: mediaToolEnv(ffprobePath()) },
  );
  const out: Record<string, string> = {};
  for (const line of stdout.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0 && !(line.slice(0, i) in out)) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/** A tiny H.264 clip (`secs` seconds, a key frame every second) for file:// sources; `mjpeg` makes a clip HLS cannot carry as it is. */
export async function makeClip(path: string, secs = 2, codec: 'h264' | 'mjpeg' = 'h264'): Promise<void> {
  const video =
    codec === 'h264'
      ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '10', '-pix_fmt', 'yuv420p']
      : ['-c:v', 'mjpeg', '-q:v', '8'];
  await run(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=160x90:rate=10:duration=${secs}`,
      ...video,
      '-y',
      path,
    ],
    { timeout: 20_000, env: mediaToolEnv(ffmpegPath()) },
  );
}

/** A local ffmpeg serving FLV over RTMP to one client (a camera or encoder stand-in). */
export function rtmpSource(port: number): ChildProcess {
  return spawn(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-re',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x90:rate=10',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-tune',
      'zerolatency',
      '-g',
      '10',
      '-pix_fmt',
      'yuv420p',
      '-f',
      'flv',
      '-listen',
      '1',
      `rtmp://127.0.0.1:${port}/live/cam`,
    ],
    { stdio: 'ignore', env: mediaToolEnv(ffmpegPath()) },
  );
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
  everyMs = 250,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await sleep(everyMs);
  }
}

export async function streamRow(
  n: RunningNode,
  name: string,
  token?: string,
): Promise<Record<string, any> | undefined> {
  const r = await call(n.url, 'GET', '/api/v1/streams', { token });
  return (r.json?.rows as Array<Record<string, any>> | undefined)?.find((x) => x.name === name);
}

export function waitState(
  n: RunningNode,
  name: string,
  state: string,
  timeoutMs = 20_000,
  token?: string,
): Promise<Record<string, any>> {
  return waitFor(
    `${name} ${state}`,
    async () => {
      const row = await streamRow(n, name, token);
      return row?.state === state ? row : null;
    },
    timeoutMs,
  );
}

/** Pids of the direct children of `pid` (the node's ffmpeg processes), read from /proc. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
      if (ppid === pid && state !== 'Z') out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** Stops the node and makes sure none of its ffmpeg children outlive it (killed by pid if so). */
export async function stopAndReap(n: RunningNode | undefined): Promise<number[]> {
  if (!n) return [];
  const kids = n.proc.pid ? childPids(n.proc.pid) : [];
  await n.stop();
  await sleep(200);
  const survivors = kids.filter(alive);
  for (const pid of survivors) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  return survivors;
}

/** Lines of a playlist that are URIs. */
export function uris(playlist: string): string[] {
  return playlist
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/**
 * A local ffmpeg serving MPEG-TS over HTTP to one client: a source the test can kill. `readrate`
 * below 1 delivers frames slower than the 10 fps the stream declares (a congested camera link).
 */
export function httpSource(port: number, readrate = 1): ChildProcess {
  // `-readrate` (ffmpeg 5) spelled for the older npm-shipped ffmpeg too: the input's clock is
  // stretched for `-re`, then the frames get their 10 fps timestamps back.
  return spawn(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-re',
      '-itsscale',
      String(1 / readrate),
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=160x90:rate=10',
      '-vf',
      `setpts=${readrate}*PTS`,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-tune',
      'zerolatency',
      '-g',
      '10',
      '-pix_fmt',
      'yuv420p',
      '-f',
      'mpegts',
      '-listen',
      '1',
      `http://127.0.0.1:${port}/live.ts`,
    ],
    { stdio: 'ignore', env: mediaToolEnv(ffmpegPath()) },
  );
}

export function killChild(p: ChildProcess | undefined): Promise<void> {
  if (!p || p.exitCode !== null || p.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    p.once('exit', () => res());
    p.kill('SIGKILL');
  });
}
