import { isInitSegment, producerTime, videoTrack, type VideoTrack } from './mp4-boxes.js';

/**
 * Live video over a node's WebSocket (`GET /{stream}/live.ws?token=`, issue 23) played through
 * Media Source Extensions, without a framework: the first binary message is the fMP4
 * initialisation segment, every later one a fragment (an optional `prft`, then moof + mdat). One
 * SourceBuffer fed by an append queue; the back buffer trimmed; the playhead kept near the live
 * edge. What goes wrong is reported once, as a `LiveFailure`, and the caller decides (the player
 * falls back to HLS).
 */

/** Why live over the WebSocket stopped or never started. */
export type LiveFailure =
  | 'no-mse' // no Media Source Extensions in this browser
  | 'codec' // the stream's codec cannot be played through MSE here
  | 'refused' // the socket never opened (node refused, unreachable, token refused)
  | 'closed' // the socket closed
  | 'stalled' // no frame, or a playhead that stopped moving, for too long
  | 'media'; // the browser refused the media (append or decode error)

/** `ws(s)://<node>/<stream>/live.ws?token=` for the play answer's `<node>/<stream>/index.m3u8`; null for any other URL. */
export function liveWsUrl(playUrl: string, token: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(playUrl, base);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.pathname.endsWith('/index.m3u8')) return null;
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  u.pathname = `${u.pathname.slice(0, -'index.m3u8'.length)}live.ws`;
  u.search = '';
  u.hash = '';
  u.searchParams.set('token', token);
  return u.toString();
}

/**
 * Media time (s) to the producer's wall clock (ms since 1970), from the fragments' `prft` boxes:
 * the newest point at or before a time, plus the media time elapsed since it. Bounded.
 */
export class WallClockMap {
  private points: Array<{ media: number; wall: number }> = [];
  constructor(private readonly max = 600) {}

  add(mediaSecs: number, wallMs: number): void {
    const last = this.points[this.points.length - 1];
    // A restarted producer (or a node that starts a viewer afresh) may go back in media time.
    if (last && mediaSecs <= last.media) this.points = this.points.filter((p) => p.media < mediaSecs);
    this.points.push({ media: mediaSecs, wall: wallMs });
    if (this.points.length > this.max) this.points.splice(0, this.points.length - this.max);
  }

  /** The wall clock at `mediaSecs`; null before the first point or when there is none. */
  at(mediaSecs: number): number | null {
    let lo = 0;
    let hi = this.points.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.points[mid]!.media <= mediaSecs + 1e-6) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return null;
    const p = this.points[found]!;
    return p.wall + (mediaSecs - p.media) * 1000;
  }

  get size(): number {
    return this.points.length;
  }
}

/**
 * The live-edge rule: the playhead lags the end of what is buffered by `lag` seconds. Past
 * `jump` the player seeks to `target` before the end; past `catchUp` it plays a little faster
 * until it is back within `target`; otherwise it plays at normal speed. A lag below a second
 * keeps glass-to-glass latency under the 1 s with the encoder's and network's share.
 */
export const EDGE = { target: 0.3, catchUp: 0.7, jump: 1.5, fastRate: 1.1 } as const;

/** Seconds of buffer a paused live player may pile up before its picture is moved to the edge. */
const PAUSED_MAX = 30;

export function edgeStep(lag: number, rate: number): { seekBack: number | null; rate: number } {
  if (lag > EDGE.jump) return { seekBack: EDGE.target, rate: 1 };
  if (lag > EDGE.catchUp) return { seekBack: null, rate: EDGE.fastRate };
  if (lag <= EDGE.target + 0.05) return { seekBack: null, rate: 1 };
  return { seekBack: null, rate };
}

/** The part of the buffer behind the playhead to remove, keeping `keepSecs`; null when little is there. */
export function trimRange(start: number, currentTime: number, keepSecs: number): [number, number] | null {
  const end = currentTime - keepSecs;
  // Removing takes the SourceBuffer a moment: only once a second or more has piled up.
  return end - start >= 1 ? [start, end] : null;
}

export interface WsLiveOptions {
  url: string;
  video: HTMLVideoElement;
  /** the first frame is buffered and playback was asked for */
  onStarted?(): void;
  onFailure(failure: LiveFailure, detail: string): void;
  /** seconds of buffer kept behind the playhead */
  keepSecs?: number;
  /** no first frame within this long (ms) after opening: stalled */
  firstFrameMs?: number;
  /** a playhead that did not move for this long (ms), or no message for as long: stalled */
  stallMs?: number;
}

type MediaSourceCtor = typeof MediaSource;

/** The browser's MediaSource (or Safari's ManagedMediaSource); null without MSE. */
export function mediaSourceCtor(): MediaSourceCtor | null {
  const g = globalThis as { MediaSource?: MediaSourceCtor; ManagedMediaSource?: MediaSourceCtor };
  return g.MediaSource ?? g.ManagedMediaSource ?? null;
}

/**
 * One live viewer over the WebSocket. `clock` maps the video's media time to the ingest's wall
 * clock; each mapping is also dispatched on the video element as an `argus-wallclock` event
 * ({mediaTime, wallMs, via: 'prft'}), for a clock shown over the video and the latency bench.
 */
export class WsLive {
  readonly clock = new WallClockMap();
  private ws: WebSocket | null = null;
  private ms: MediaSource | null = null;
  private sb: SourceBuffer | null = null;
  private objectUrl: string | null = null;
  private track: VideoTrack | null = null;
  private queue: Uint8Array[] = [];
  private opened = false;
  private started = false;
  private done = false;
  private timer: ReturnType<typeof setInterval> | null = null;
  private lastMessageAt = 0;
  private lastPlayhead = { time: -1, at: 0 };
  /** since when a first frame is awaited: the socket's opening, or the last new ingest run */
  private waitingSince = Date.now();
  private readonly keepSecs: number;
  private readonly firstFrameMs: number;
  private readonly stallMs: number;

  constructor(private readonly o: WsLiveOptions) {
    this.keepSecs = o.keepSecs ?? 3;
    this.firstFrameMs = o.firstFrameMs ?? 6000;
    this.stallMs = o.stallMs ?? 5000;
    const MS = mediaSourceCtor();
    if (!MS) {
      queueMicrotask(() => this.fail('no-mse', 'this browser has no Media Source Extensions'));
      return;
    }
    let ws: WebSocket;
    try {
      ws = new WebSocket(o.url);
    } catch (err) {
      // A URL the browser will not open at all (mixed content, a policy that throws): refused.
      queueMicrotask(() => this.fail('refused', String(err)));
      return;
    }
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      this.opened = true;
      this.lastMessageAt = Date.now();
    };
    ws.onmessage = (e: MessageEvent) => {
      if (e.data instanceof ArrayBuffer) this.receive(new Uint8Array(e.data), MS);
    };
    ws.onclose = (e: CloseEvent) =>
      this.fail(this.opened ? 'closed' : 'refused', `socket ${this.opened ? 'closed' : 'refused'} (${e.code})`);
    this.ws = ws;
    this.timer = setInterval(() => this.watch(), 500);
  }

  /** Stops: closes the socket, detaches the media source from the video. Idempotent. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    if (this.timer) clearInterval(this.timer);
    if (this.ws) {
      this.ws.onclose = this.ws.onmessage = this.ws.onopen = null;
      this.ws.close();
    }
    const v = this.o.video;
    v.removeEventListener('play', this.onPlay);
    if (this.objectUrl) {
      v.removeAttribute('src');
      v.load();
      URL.revokeObjectURL(this.objectUrl);
    }
    this.queue = [];
    this.sb = null;
    this.ms = null;
  }

  private fail(failure: LiveFailure, detail: string): void {
    if (this.done) return;
    this.stop();
    this.o.onFailure(failure, detail);
  }

  private receive(bytes: Uint8Array, MS: MediaSourceCtor): void {
    if (this.done) return;
    this.lastMessageAt = Date.now();
    if (this.track && isInitSegment(bytes)) this.restart();
    if (!this.track) {
      if (!isInitSegment(bytes)) return; // a fragment before any init segment cannot be decoded
      this.track = videoTrack(bytes);
      if (!this.track) return this.fail('codec', 'no video track the console can name');
      const mime = `video/mp4; codecs="${this.track.codec}"`;
      if (!MS.isTypeSupported(mime)) return this.fail('codec', `${mime} is not supported here`);
      this.queue.push(bytes);
      this.attach(MS, mime);
      return;
    }
    const prft = producerTime(bytes);
    if (prft && prft.trackId === this.track.trackId) {
      const mediaTime = prft.mediaTime / this.track.timescale;
      this.clock.add(mediaTime, prft.wallMs);
      this.o.video.dispatchEvent(
        new CustomEvent('argus-wallclock', { detail: { mediaTime, wallMs: prft.wallMs, via: 'prft' } }),
      );
    }
    this.queue.push(bytes);
    this.pump();
  }

  /**
   * A new initialisation segment on an open socket: the ingest started a new run (a restart, a
   * new input), whose media time starts afresh and whose codec may differ. The player starts
   * afresh on a new MediaSource over the same socket, at the run's first key frame.
   */
  private restart(): void {
    this.o.video.removeEventListener('play', this.onPlay);
    if (this.objectUrl) URL.revokeObjectURL(this.objectUrl);
    this.objectUrl = null;
    this.ms = null;
    this.sb = null;
    this.track = null;
    this.queue = [];
    this.started = false;
    this.waitingSince = Date.now();
  }

  private attach(MS: MediaSourceCtor, mime: string): void {
    const ms = new MS();
    this.ms = ms;
    this.objectUrl = URL.createObjectURL(ms);
    ms.addEventListener(
      'sourceopen',
      () => {
        if (this.done) return;
        try {
          const sb = ms.addSourceBuffer(mime);
          sb.mode = 'segments';
          sb.addEventListener('updateend', () => this.appended());
          sb.addEventListener('error', () => this.fail('media', 'the browser refused a fragment'));
          this.sb = sb;
          this.pump();
        } catch (err) {
          this.fail('codec', `no SourceBuffer for ${mime}: ${String(err)}`);
        }
      },
      { once: true },
    );
    this.o.video.addEventListener('play', this.onPlay);
    this.o.video.src = this.objectUrl;
  }

  /** Appends what is queued, as one buffer, when the SourceBuffer is idle. */
  private pump(): void {
    const sb = this.sb;
    if (!sb || sb.updating || this.queue.length === 0 || this.ms?.readyState !== 'open') return;
    const total = this.queue.reduce((n, b) => n + b.byteLength, 0);
    const all = new Uint8Array(total);
    let at = 0;
    for (const b of this.queue) {
      all.set(b, at);
      at += b.byteLength;
    }
    try {
      sb.appendBuffer(all);
      this.queue = [];
    } catch (err) {
      // QuotaExceededError: the buffer is full; drop what is behind the playhead and retry on updateend.
      if ((err as DOMException).name === 'QuotaExceededError') this.trim(0.5);
      else this.fail('media', String(err));
    }
  }

  private appended(): void {
    if (this.done) return;
    const v = this.o.video;
    const b = this.sb?.buffered;
    if (b && b.length > 0) {
      if (!this.started) {
        this.started = true;
        v.currentTime = Math.max(b.start(0), b.end(b.length - 1) - EDGE.target);
        void v.play().catch(() => {});
        this.o.onStarted?.();
      } else this.keepLive();
      this.trim(this.keepSecs);
    }
    this.pump();
  }

  /** After a pause (the user's, or the browser's for a hidden tab) playback resumes at the live edge. */
  private readonly onPlay = () => {
    this.keepLive();
  };

  private keepLive(): void {
    const v = this.o.video;
    const b = this.sb?.buffered;
    if (!b || b.length === 0) return;
    const end = b.end(b.length - 1);
    const step = edgeStep(end - v.currentTime, v.playbackRate);
    if (step.seekBack !== null) v.currentTime = end - step.seekBack;
    if (v.playbackRate !== step.rate) v.playbackRate = step.rate;
  }

  private trim(keepSecs: number): void {
    const sb = this.sb;
    if (!sb || sb.updating || sb.buffered.length === 0) return;
    const range = trimRange(sb.buffered.start(0), this.o.video.currentTime, keepSecs);
    if (range) sb.remove(range[0], range[1]);
  }

  /** Twice a second: the live edge, and whether frames still come and the playhead still moves. */
  private watch(): void {
    if (this.done) return;
    const now = Date.now();
    const v = this.o.video;
    if (!this.started) {
      if (now - this.waitingSince > this.firstFrameMs) this.fail('stalled', 'no first frame');
      return;
    }
    if (now - this.lastMessageAt > this.stallMs) return this.fail('stalled', 'no fragment from the node');
    const hidden = typeof document !== 'undefined' && document.hidden;
    if (v.paused || hidden || v.currentTime !== this.lastPlayhead.time) {
      this.lastPlayhead = { time: v.currentTime, at: now };
    } else if (now - this.lastPlayhead.at > this.stallMs) return this.fail('stalled', 'the playhead stopped');
    // Paused, the picture stays where the user left it (play resumes at the edge, onPlay); only a
    // pause long enough to pile up PAUSED_MAX seconds moves it, so that the buffer stays bounded.
    const b = this.sb?.buffered;
    const lag = b && b.length > 0 ? b.end(b.length - 1) - v.currentTime : 0;
    if (!v.paused || lag > PAUSED_MAX) this.keepLive();
  }
}
