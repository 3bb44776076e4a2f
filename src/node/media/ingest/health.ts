/**
 * Whether a running ingest delivers what it should. `degraded` is judged on the recent past:
 * frames arriving at less than half the rate the source declares, no finished segment for three
 * segment lengths, or a bitrate that fell under a fifth of what the stream carried before.
 */
export interface HealthVerdict {
  ok: boolean;
  reason: string | null;
}

const FPS_WINDOW_MS = 5000;
const BASELINE_SEGMENTS = 30;
const RECENT_SEGMENTS = 3;

interface FrameSample {
  t: number;
  frame: number;
}
interface SegmentSample {
  t: number;
  bytes: number;
  duration: number;
}

export class Health {
  private framesSeen: FrameSample[] = [];
  private lastAdvance = 0;
  private segs: SegmentSample[] = [];

  constructor(private readonly segmentSecs: number) {}

  frames(t: number, frame: number): void {
    if (!Number.isFinite(frame)) return;
    const last = this.framesSeen[this.framesSeen.length - 1];
    if (!last || frame > last.frame) this.lastAdvance = t;
    this.framesSeen.push({ t, frame });
    while (this.framesSeen.length > 2 && this.framesSeen[0].t < t - FPS_WINDOW_MS) this.framesSeen.shift();
  }

  segment(t: number, bytes: number, duration: number): void {
    this.segs.push({ t, bytes, duration });
    if (this.segs.length > BASELINE_SEGMENTS + RECENT_SEGMENTS) this.segs.shift();
  }

  /** Frames per second over the last few seconds; null before two progress reports. */
  fps(now: number): number | null {
    const s = this.framesSeen;
    if (s.length < 2) return null;
    const first = s[0];
    const last = s[s.length - 1];
    if (now - last.t > FPS_WINDOW_MS) return 0;
    const span = last.t - first.t;
    return span > 0 ? Math.round(((last.frame - first.frame) * 10000) / span) / 10 : null;
  }

  /** kbit/s of the last few finished segments. */
  bitrateKbps(): number | null {
    return rate(this.segs.slice(-RECENT_SEGMENTS));
  }

  /**
   * No frame has advanced for `stallMs`. Before the first frame twice that is allowed: ffmpeg
   * probes the source first, and a slow link delivers the probe's few seconds of video slowly.
   */
  stalled(now: number, runStartedAt: number, stallMs: number): boolean {
    if (this.lastAdvance === 0) return now - runStartedAt > 2 * stallMs;
    return now - Math.max(this.lastAdvance, runStartedAt) > stallMs;
  }

  verdict(now: number, expectedFps: number | null): HealthVerdict {
    const lastSeg = this.segs[this.segs.length - 1];
    const lateAfter = Math.max(3 * this.segmentSecs, 3) * 1000 + 1000;
    if (lastSeg && now - lastSeg.t > lateAfter) {
      return { ok: false, reason: `segments late: none for ${Math.round((now - lastSeg.t) / 1000)} s` };
    }
    const fps = this.fps(now);
    if (expectedFps && fps !== null && this.framesSeen.length >= 4 && fps < expectedFps / 2) {
      return { ok: false, reason: `frames late: ${fps} fps of ${expectedFps}` };
    }
    if (this.segs.length >= RECENT_SEGMENTS + 5) {
      const recent = rate(this.segs.slice(-RECENT_SEGMENTS));
      const baseline = rate(this.segs.slice(0, -RECENT_SEGMENTS));
      if (recent !== null && baseline !== null && baseline > 0 && recent < baseline / 5) {
        return { ok: false, reason: `bitrate collapsed: ${recent} kbit/s against ${baseline} before` };
      }
    }
    return { ok: true, reason: null };
  }
}

function rate(s: SegmentSample[]): number | null {
  const secs = s.reduce((a, x) => a + x.duration, 0);
  if (secs <= 0) return null;
  return Math.round((s.reduce((a, x) => a + x.bytes, 0) * 8) / secs / 1000);
}
