import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { maskUrlCredentials } from '../../../common/redact.js';
import { spawnMedia } from '../ffmpeg.js';
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { parseLivePlaylist, type LiveSegment } from '../hls/live-playlist.js';
import { ffmpegArgs } from './ingest.args.js';
import { planInput, withHttpProxy, type InputPlan } from './input.js';
import { gatedEnv, SourceGate } from './source-gate.js';
import { Health, type HealthVerdict } from './health.js';

export type IngestState = 'starting' | 'live' | 'degraded' | 'failing';

export interface FinishedSegment extends LiveSegment {
  path: string;
  bytes: number;
  /** Wall-clock start in ms: the playlist's date-time, else estimated from when it appeared. */
  start: number;
}

export interface IngestOptions {
  stream: string;
  input: string;
  liveDir: string;
  ffmpeg: string;
  segmentSecs: number;
  log: Logger;
  now: () => number;
  onState(state: IngestState, reason: string | null): void;
  onSegment(seg: FinishedSegment): void;
  /** Given each run's fragmented MP4 (live over WebSocket); it must be read at once, or ffmpeg stalls. */
  onFmp4?(out: Readable, run: number): void;
}

export interface IngestStatus {
  state: IngestState;
  reason: string | null;
  fps: number | null;
  bitrate_kbps: number | null;
  resolution: string | null;
  codec: string | null;
  video: 'copy' | 'encode';
  last_error: string | null;
  last_error_ms: number | null;
  restarts: number;
  first_segment_ms: number | null;
}

const BACKOFF_MS = [1000, 2000, 4000, 8000, 16000, 30000];
const HEALTHY_RESET_MS = 30_000;
const POLL_MS = 250;
const STALL_MS = 10_000;
const COPYABLE = new Set(['h264', 'hevc']);

/**
 * One stream's ingest: a supervised ffmpeg child that reads the source and writes live HLS into
 * a private folder. A child that exits, or stops delivering frames, is restarted with back-off
 * (1 s doubling to 30 s, reset after 30 s of good service); meanwhile the stream is `failing`
 * with the reason ffmpeg gave. Video is copied when the source's codec can go into HLS as it is.
 */
export class Ingest {
  private child: ChildProcess | null = null;
  private run = 0;
  private attempt = 0;
  private stopping = false;
  private timer: NodeJS.Timeout | null = null;
  private restartTimer: NodeJS.Timeout | null = null;
  private state: IngestState = 'starting';
  /** Why the stream is `degraded` or `failing`; null when it is fine. */
  private reason: string | null = null;
  private lastError: string | null = null;
  private lastErrorMs: number | null = null;
  private stderrTail: string[] = [];
  private inInput = false;
  private codec: string | null = null;
  private resolution: string | null = null;
  private declaredFps: number | null = null;
  private forceEncode = false;
  private lastSeq = -1;
  private segments: FinishedSegment[] = [];
  private runStartedAt = 0;
  private liveSince: number | null = null;
  private firstSegmentMs: number | null = null;
  private restarts = 0;
  private playlistMtime = 0;
  private health: Health;
  private readonly plan: InputPlan;
  private exited: Promise<void> = Promise.resolve();
  /** Why the current child is being killed by the node itself (stall, codec switch), for the failure message. */
  private pendingReason: string | null = null;
  /** The child is killed to switch from copy to encoding: restart at once, not after back-off. */
  private pendingSwitch = false;
  private readyWaiters: Array<() => void> = [];
  /** An http(s) source is reached only through its gate: no redirect or playlist entry takes ffmpeg to another host. */
  private readonly gate: SourceGate | null;

  constructor(private readonly o: IngestOptions) {
    this.plan = planInput(o.input);
    this.gate = this.plan.kind === 'http' ? new SourceGate(o.input, o.log, o.stream) : null;
    this.health = new Health(o.segmentSecs);
  }

  /** The folder ffmpeg writes this stream's live HLS into. */
  get dir(): string {
    return this.o.liveDir;
  }

  get live(): FinishedSegment[] {
    return this.segments;
  }

  get running(): boolean {
    return this.child !== null;
  }

  status(): IngestStatus {
    return {
      state: this.state,
      reason: this.reason,
      fps: this.health.fps(this.o.now()),
      bitrate_kbps: this.health.bitrateKbps(),
      resolution: this.resolution,
      // What viewers get: the source's codec when copied, H.264 when encoded.
      codec: this.plan.encode || this.forceEncode ? 'h264' : this.codec,
      video: this.plan.encode || this.forceEncode ? 'encode' : 'copy',
      last_error: this.lastError,
      last_error_ms: this.lastErrorMs,
      restarts: this.restarts,
      first_segment_ms: this.firstSegmentMs,
    };
  }

  start(): void {
    this.stopping = false;
    void this.spawnRun();
  }

  /** Resolves once a segment is playable, or when the ingest fails or `timeoutMs` passes (then false). */
  ready(timeoutMs: number): Promise<boolean> {
    if (this.segments.length > 0 && this.child) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(t);
        this.readyWaiters = this.readyWaiters.filter((w) => w !== waiter);
        resolve(ok);
      };
      const waiter = (): void => done(this.segments.length > 0 && this.state !== 'failing');
      const t = setTimeout(() => done(false), timeoutMs);
      this.readyWaiters.push(waiter);
    });
  }

  /**
   * Graceful stop: SIGINT makes ffmpeg finish the open segment and the playlist, and the last
   * segments are handed on (to the recorder) before this resolves. `killAfterMs` bounds it.
   */
  async stop(killAfterMs = 4000): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGINT');
      const hard = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      await this.exited;
      clearTimeout(hard);
    }
    await this.poll().catch(() => undefined);
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.gate?.close();
    this.wake();
  }

  private async spawnRun(): Promise<void> {
    if (this.stopping) return;
    this.run++;
    const run = this.run;
    this.segments = [];
    this.lastSeq = -1;
    this.playlistMtime = 0;
    this.stderrTail = [];
    this.inInput = false;
    this.health = new Health(this.o.segmentSecs);
    this.liveSince = null;
    await rm(this.o.liveDir, { recursive: true, force: true });
    await mkdir(this.o.liveDir, { recursive: true, mode: 0o700 });
    const proxy = this.gate ? await this.gate.open().catch(() => null) : null;
    if (this.stopping || run !== this.run) return;
    // Never without the gate: a failure to open it is a failed run, retried with back-off.
    if (this.gate && !proxy) {
      this.fail('cannot open the source gate');
      this.scheduleRestart();
      return;
    }
    const args = ffmpegArgs(proxy ? { ...this.plan, args: withHttpProxy(this.plan.args, proxy) } : this.plan, {
      encode: this.plan.encode || this.forceEncode,
      segmentSecs: this.o.segmentSecs,
      bitrateKbps:
        this.plan.kind === 'testsrc'
          ? Number(new URL(this.o.input).searchParams.get('bitrate') ?? 150) || 150
          : undefined,
      liveDir: this.o.liveDir,
      run,
      fmp4Fd: this.o.onFmp4 ? 3 : undefined,
    });
    this.runStartedAt = this.o.now();
    if (this.state !== 'failing') this.setState('starting', null);
    const child = spawnMedia(this.o.ffmpeg, args, {
      stdio: ['ignore', 'pipe', 'pipe', ...(this.o.onFmp4 ? (['pipe'] as const) : [])],
      ...(proxy ? { env: gatedEnv(process.env) } : {}),
    });
    this.child = child;
    if (this.o.onFmp4 && child.stdio[3]) this.o.onFmp4(child.stdio[3] as Readable, run);
    this.o.log.debug({ stream: this.o.stream, pid: child.pid, run }, 'ingest started');
    let progress = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      progress += chunk;
      let i;
      while ((i = progress.indexOf('\n')) >= 0) {
        const line = progress.slice(0, i);
        progress = progress.slice(i + 1);
        if (line.startsWith('frame=')) this.health.frames(this.o.now(), Number(line.slice(6)));
      }
    });
    let errBuf = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      errBuf += chunk;
      let i;
      while ((i = errBuf.search(/[\r\n]/)) >= 0) {
        const line = errBuf.slice(0, i).trim();
        errBuf = errBuf.slice(i + 1);
        if (line) this.stderrLine(line, child);
      }
    });
    this.exited = new Promise((resolve) => {
      child.once('error', (err) => {
        this.fail(`cannot start ffmpeg: ${err.message}`);
        this.child = null;
        resolve();
        this.scheduleRestart();
      });
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = null;
        void this.poll()
          .catch(() => undefined)
          .then(() => {
            if (!this.stopping) {
              const tail = this.stderrTail.filter((l) => !/^(Press|frame=|\[.*@ 0x[0-9a-f]+\] Opening)/.test(l));
              const reason = this.pendingReason ?? tail[tail.length - 1] ?? `ffmpeg exited with ${signal ?? code}`;
              this.pendingReason = null;
              this.fail(code === 0 && !this.pendingSwitch ? `the source ended (${reason})` : reason);
              this.scheduleRestart();
            }
            resolve();
          });
      });
    });
    if (!this.timer)
      this.timer = setInterval(() => {
        void this.tick();
      }, POLL_MS);
  }

  private stderrLine(line: string, child: ChildProcess): void {
    // Camera credentials must not reach logs, the API or the events feed through an error message.
    this.stderrTail.push(maskUrlCredentials(line));
    if (this.stderrTail.length > 20) this.stderrTail.shift();
    if (/^Input #0/.test(line)) {
      this.inInput = true;
      return;
    }
    if (/^(Output #0|Stream mapping)/.test(line)) {
      this.inInput = false;
      return;
    }
    if (!this.inInput) return;
    const m = /Stream #0:\d+.*?: Video: (\w+)/.exec(line);
    if (!m) return;
    this.codec = m[1];
    const size = /, (\d{2,5})x(\d{2,5})/.exec(line);
    if (size) this.resolution = `${size[1]}x${size[2]}`;
    const fps = /, ([\d.]+) (?:fps|tbr)/.exec(line);
    this.declaredFps = fps ? Number(fps[1]) : null;
    // Copy needs a codec HLS carries as it is; anything else (MJPEG cameras, MPEG-4) is encoded.
    if (!this.plan.encode && !this.forceEncode && !COPYABLE.has(this.codec)) {
      this.forceEncode = true;
      this.pendingSwitch = true;
      this.pendingReason = `source video is ${this.codec}: switching to H.264 encoding`;
      this.o.log.info(
        { stream: this.o.stream, codec: this.codec },
        'source codec cannot be copied into HLS; encoding instead',
      );
      child.kill('SIGKILL');
    }
  }

  private async tick(): Promise<void> {
    await this.poll().catch(() => undefined);
    const child = this.child;
    if (!child || this.stopping) return;
    const now = this.o.now();
    if (this.health.stalled(now, this.runStartedAt, STALL_MS)) {
      this.pendingReason = `no frames from the source for ${STALL_MS / 1000} s`;
      child.kill('SIGKILL');
      return;
    }
    if (this.segments.length === 0) return;
    if (this.liveSince !== null && now - this.liveSince > HEALTHY_RESET_MS) this.attempt = 0;
    const verdict: HealthVerdict = this.health.verdict(now, this.plan.nominalFps ?? this.declaredFps);
    if (verdict.ok) this.setState('live', null);
    else this.setState('degraded', verdict.reason);
  }

  /** Reads ffmpeg's playlist when it changed and hands every newly finished segment on. */
  private async poll(): Promise<void> {
    const file = join(this.o.liveDir, 'index.m3u8');
    let mtime: number;
    try {
      mtime = (await stat(file)).mtimeMs;
    } catch {
      return;
    }
    if (mtime === this.playlistMtime) return;
    this.playlistMtime = mtime;
    const pl = parseLivePlaylist(await readFile(file, 'utf8'));
    if (!pl) return;
    const now = this.o.now();
    const fresh: FinishedSegment[] = [];
    for (const s of pl.segments) {
      if (s.seq <= this.lastSeq) continue;
      const path = join(this.o.liveDir, s.uri);
      let bytes: number;
      try {
        bytes = (await stat(path)).size;
      } catch {
        continue;
      }
      fresh.push({ ...s, path, bytes, start: s.startMs ?? now - s.duration * 1000 });
    }
    const listed = new Set(pl.segments.map((s) => s.uri));
    this.segments = [...this.segments.filter((s) => listed.has(s.uri)), ...fresh];
    for (const seg of fresh) {
      this.lastSeq = seg.seq;
      this.health.segment(now, seg.bytes, seg.duration);
      if (this.firstSegmentMs === null) {
        this.firstSegmentMs = now - this.runStartedAt;
        this.o.log.info({ stream: this.o.stream, first_segment_ms: this.firstSegmentMs }, 'first segment ready');
      }
      this.o.onSegment(seg);
    }
    if (fresh.length > 0 && this.child && !this.stopping) {
      if (this.state === 'starting' || this.state === 'failing') {
        this.liveSince = now;
        this.setState('live', null);
      }
      this.wake();
    }
  }

  private fail(reason: string): void {
    this.lastError = maskUrlCredentials(reason);
    this.lastErrorMs = this.o.now();
    this.o.log.warn({ stream: this.o.stream, reason: this.lastError }, 'ingest failed');
    this.setState('failing', this.lastError);
    this.wake();
  }

  private scheduleRestart(): void {
    if (this.stopping) return;
    // A codec switch is not a failure of the source: retry at once.
    const delay = this.pendingSwitch ? 0 : BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    if (!this.pendingSwitch) this.attempt++;
    this.pendingSwitch = false;
    this.restarts++;
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void this.spawnRun();
    }, delay);
  }

  private setState(state: IngestState, reason: string | null): void {
    this.reason = reason;
    if (state === this.state) return;
    this.state = state;
    this.o.onState(state, reason);
  }

  private wake(): void {
    for (const w of [...this.readyWaiters]) w();
  }
}
